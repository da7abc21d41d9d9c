/*
 * Brand colours are written into stylesheets and SVG, and text is drawn on them, so only plain hex
 * colours are accepted and every colour choice on them follows WCAG 2 contrast.
 */

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** The colour in lower case when it is a plain hex colour (`#abc` or `#aabbcc`), else undefined. */
export function safeHexColor(value: string | null | undefined): string | undefined {
  return value && HEX_COLOR.test(value) ? value.toLowerCase() : undefined;
}

/** WCAG relative luminance of a hex colour, 0 (black) to 1 (white). */
function relativeLuminance(hex: string): number {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((d) => d + d).join('') : hex.slice(1);
  const channel = (i: number) => {
    const c = Number.parseInt(digits.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** WCAG contrast ratio of two hex colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever reads better on the colour (at least 4.58:1 on any colour). */
export function textColorOn(hex: string): '#000000' | '#ffffff' {
  // Contrast with white is 1.05 / (L + 0.05); with black (L + 0.05) / 0.05: equal at L ≈ 0.179.
  return relativeLuminance(hex) > 0.179 ? '#000000' : '#ffffff';
}
