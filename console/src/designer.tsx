import {
  Award,
  BookOpen,
  Code,
  GraduationCap,
  HeartHandshake,
  Lightbulb,
  Medal,
  ShieldCheck,
  Star,
  Trophy,
} from 'lucide-static';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Field, inputValue } from './ui';

/** The bundled icons (lucide-static, ISC): a small subset, so the console stays within budget. */
const ICONS: Record<string, string> = {
  Award,
  BookOpen,
  Code,
  GraduationCap,
  HeartHandshake,
  Lightbulb,
  Medal,
  ShieldCheck,
  Star,
  Trophy,
};

const SHAPES: Record<string, string> = {
  circle: '<circle cx="256" cy="256" r="240"/>',
  hexagon: '<polygon points="256,16 464,136 464,376 256,496 48,376 48,136"/>',
  shield: '<path d="M256 16 L464 88 V248 C464 376 368 456 256 496 C144 456 48 376 48 248 V88 Z"/>',
  square: '<rect x="24" y="24" width="464" height="464" rx="72"/>',
};

export interface BadgeDesign {
  shape: string;
  background: string;
  foreground: string;
  icon: string;
  title: string;
  subtitle: string;
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

/** The icon's own drawing, without its <svg> wrapper. */
const iconBody = (svg: string) => svg.replace(/^[\s\S]*?<svg[^>]*>/, '').replace(/<\/svg>[\s\S]*$/, '');

/** The design as a standalone 512×512 SVG document. */
export function badgeSvg(design: BadgeDesign): string {
  const shape = SHAPES[design.shape] ?? SHAPES.circle;
  const icon = iconBody(ICONS[design.icon] ?? Award);
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512">',
    `<g fill="${design.background}" stroke="${design.foreground}" stroke-width="12">${shape}</g>`,
    `<g transform="translate(176 96) scale(6.6667)" fill="none" stroke="${design.foreground}" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${icon}</g>`,
    `<text x="256" y="332" text-anchor="middle" font-family="system-ui, sans-serif" font-size="44" font-weight="700" fill="${design.foreground}">${escapeXml(design.title)}</text>`,
    `<text x="256" y="384" text-anchor="middle" font-family="system-ui, sans-serif" font-size="28" fill="${design.foreground}">${escapeXml(design.subtitle)}</text>`,
    '</svg>',
  ].join('');
}

const svgDataUrl = (svg: string) => `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;

/** The design rasterised by the browser's canvas, for platforms that want a PNG. */
export function badgePng(svg: string): Promise<Blob> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = 512;
      canvas.height = 512;
      canvas.getContext('2d')?.drawImage(image, 0, 0, 512, 512);
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no PNG'))), 'image/png');
    };
    image.onerror = () => reject(new Error('The design could not be drawn.'));
    image.src = svgDataUrl(svg);
  });
}

const HEX = /^#[0-9a-fA-F]{6}$/;

export function BadgeDesigner({ initialTitle, onChange }: { initialTitle: string; onChange: (svg: string) => void }) {
  const [design, setDesign] = useState<BadgeDesign>({
    shape: 'circle',
    background: '#1d4ed8',
    foreground: '#ffffff',
    icon: 'Award',
    title: initialTitle.slice(0, 18),
    subtitle: '',
  });
  const svg = useMemo(() => badgeSvg(design), [design]);
  useEffect(() => onChange(svg), [svg, onChange]);
  const set = (key: keyof BadgeDesign) => (event: Event) => {
    const value = inputValue(event);
    if ((key === 'background' || key === 'foreground') && !HEX.test(value)) return;
    setDesign({ ...design, [key]: value });
  };
  return (
    <fieldset class="designer">
      <legend>Badge designer</legend>
      <div class="designer-grid">
        <img class="preview" src={svgDataUrl(svg)} alt={`Badge preview: ${design.title}`} width={160} height={160} />
        <div>
          <Field label="Shape" id="design-shape">
            <select id="design-shape" value={design.shape} onChange={set('shape')}>
              {Object.keys(SHAPES).map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Icon" id="design-icon">
            <select id="design-icon" value={design.icon} onChange={set('icon')}>
              {Object.keys(ICONS).map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Background colour" id="design-background">
            <input id="design-background" type="color" value={design.background} onInput={set('background')} />
          </Field>
          <Field label="Foreground colour" id="design-foreground">
            <input id="design-foreground" type="color" value={design.foreground} onInput={set('foreground')} />
          </Field>
          <Field label="Badge title" id="design-title">
            <input id="design-title" maxLength={24} value={design.title} onInput={set('title')} />
          </Field>
          <Field label="Badge subtitle" id="design-subtitle">
            <input id="design-subtitle" maxLength={32} value={design.subtitle} onInput={set('subtitle')} />
          </Field>
        </div>
      </div>
    </fieldset>
  );
}
