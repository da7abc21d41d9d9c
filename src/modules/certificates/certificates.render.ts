import type { Font } from 'fontkit';
import { AppError } from '../../core/errors.js';
import { loadedOnce } from '../../core/loaded-once.js';
import { qrcode } from '../../core/qrcode.js';
import { type FontChains, type FontFace, type FontRole, fontFor } from './certificates.fonts.js';

/** Everything printed on one certificate, already resolved: no lookup happens while drawing. */
export interface CertificateContent {
  title: string;
  earnerName: string;
  badgeName: string;
  issuerName: string;
  issuedOn: string;
  expiresOn: string | null;
  credentialId: string;
  verifyUrl: string;
  /** The wording with its placeholders replaced. */
  wording: string;
  /** The fixed words in the document's language (messages/), their placeholders replaced. */
  labels: {
    awardedTo: string;
    /** "Issued by … on …", "Expires …" (when it expires) and "Credential ID …". */
    details: string[];
    verify: string;
    subject: string;
    logoAlt: string;
    qrAlt: string;
  };
  /** The language of each text that may differ from the document's (a badge name without a translation). */
  textLangs: { title: string; badgeName: string; wording: string };
  signatories: { name: string; role: string; signature: Buffer | null; alt: string }[];
  background: Buffer | null;
  logo: Buffer | null;
  color: string;
  borderStyle: 'classic' | 'double' | 'modern' | 'none';
  orientation: 'landscape' | 'portrait';
  size: 'A4' | 'Letter';
  /** BCP 47 language of the fixed words (the document's /Lang). */
  lang: string;
  /** The signed credential, embedded byte for byte. */
  credentialJson: string;
  credentialUrl: string;
  createdAt: Date;
}

const pdfkit = loadedOnce(async () => (await import('pdfkit')).default);

const INK = '#1b1b1b';
const MUTED = '#555555';
const QR_SIZE = 84;
/** The embedded credential's file name in the PDF (its attachments panel). */
export const CREDENTIAL_FILE_NAME = 'open-badges-credential.json';

/**
 * The document title, author and subject go into the XMP packet as pdfkit writes them, unescaped:
 * `<`, `>` and `&` would break the XML, so they are replaced by look-alikes in the metadata only
 * (the page prints the text as it is). ISO 19005 wants the Info dictionary and the XMP equal.
 */
const xmpSafe = (text: string) => text.replace(/&/g, '＆').replace(/</g, '‹').replace(/>/g, '›');

type Doc = PDFKit.PDFDocument;

/**
 * pdfkit 0.20 takes a parsed fontkit font wherever it takes a font file (PDFFontFactory.open: an
 * object with `layout`), so a font parsed once serves every document; @types/pdfkit lists only a
 * path or bytes.
 */
const fontSource = (font: Font) => font as unknown as string;

/**
 * Text options of every line drawn or measured. No `features`: the document's fonts shape with
 * `ccmp` off themselves (documentView in certificates.fonts.ts), so pdfkit keeps each word's layout.
 */
const lineOptions = (width: number): PDFKit.Mixins.TextOptions => ({ width, align: 'center' });

interface Block {
  role: FontRole;
  text: string;
  field: string;
  maxSize: number;
  minSize: number;
  maxLines: number;
  color: string;
  tag: 'H1' | 'H2' | 'P';
  gapAfter: number;
  /** Set where the text's language is not the document's (ISO 32000-1 14.9.2). */
  lang?: string;
}

/**
 * Renders the certificate: one page, PDF/A-3 (level B: every font embedded and subset, the sRGB
 * output intent, no encryption; ISO 19005-3), tagged (the structure tree holds every text and
 * image in reading order, borders and backgrounds are artifacts, images carry alt text), title and
 * language set, and the signed credential embedded as an associated file (AFRelationship Data).
 * The layout is fixed and every text is fitted into its box by size and lines, so the cost does
 * not grow with the input: the lengths are capped by the API, the images by the upload.
 * Everything is loaded before the document is made and it is drawn to its end without a pause, so
 * a document is never left half drawn, holding its memory, while another one starts.
 */
export async function renderCertificate(content: CertificateContent, fonts: FontChains): Promise<Buffer> {
  const [PDFDocument, qr] = await Promise.all([pdfkit(), qrcode()]);
  const { modules } = qr.create(content.verifyUrl, { errorCorrectionLevel: 'M' });
  const faces = new Map<FontFace, Font>();
  const view = (face: FontFace) => {
    let font = faces.get(face);
    if (!font) {
      font = face.forDocument();
      faces.set(face, font);
    }
    return font;
  };
  const pick = (role: FontRole, text: string, field: string) => {
    const found = fontFor(fonts[role], text, field);
    view(found);
    return found.key;
  };
  const blocks: Block[] = [
    {
      role: 'title',
      text: content.title,
      field: 'title',
      maxSize: 34,
      minSize: 14,
      maxLines: 2,
      color: content.color,
      tag: 'H1',
      gapAfter: 10,
      lang: content.textLangs.title,
    },
    {
      role: 'body',
      text: content.labels.awardedTo,
      field: 'wording',
      maxSize: 12,
      minSize: 8,
      maxLines: 1,
      color: MUTED,
      tag: 'P',
      gapAfter: 2,
    },
    {
      role: 'strong',
      text: content.earnerName,
      field: "earner's name",
      maxSize: 32,
      minSize: 12,
      maxLines: 2,
      color: INK,
      tag: 'P',
      gapAfter: 8,
    },
    {
      role: 'strong',
      text: content.badgeName,
      field: 'badge name',
      maxSize: 20,
      minSize: 10,
      maxLines: 2,
      color: content.color,
      tag: 'H2',
      gapAfter: 8,
      lang: content.textLangs.badgeName,
    },
    {
      role: 'body',
      text: content.wording,
      field: 'wording',
      maxSize: 13,
      minSize: 7,
      maxLines: 5,
      color: INK,
      tag: 'P',
      gapAfter: 8,
      lang: content.textLangs.wording,
    },
    {
      role: 'body',
      text: content.labels.details.join(' · '),
      field: 'issuer name',
      maxSize: 9.5,
      minSize: 6,
      maxLines: 3,
      color: MUTED,
      tag: 'P',
      gapAfter: 0,
    },
  ];
  const verifyLine = content.labels.verify;
  const keys = blocks.map((b) => pick(b.role, b.text, b.field));
  const verifyKey = pick('body', verifyLine, 'verification address');
  const signatoryKeys = content.signatories.map((s, i) => ({
    name: pick('strong', s.name, `name of signatory ${i + 1}`),
    role: pick('body', s.role, `role of signatory ${i + 1}`),
  }));

  const documentTitle = `${content.title}: ${content.badgeName}`;
  const doc: Doc = new PDFDocument({
    size: content.size === 'A4' ? 'A4' : 'LETTER',
    layout: content.orientation,
    margin: 0,
    pdfVersion: '1.7',
    subset: 'PDF/A-3b',
    tagged: true,
    lang: content.lang,
    displayTitle: true,
    // Never the standard Helvetica, which PDF/A would need embedded: the bundled body font.
    ...(fonts.body[0] ? { font: fontSource(view(fonts.body[0])) } : {}),
    info: {
      Title: xmpSafe(documentTitle),
      Author: xmpSafe(content.issuerName),
      Subject: xmpSafe(content.labels.subject),
      Creator: 'Accolade',
      Producer: 'Accolade (PDFKit)',
      CreationDate: content.createdAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(wholeBuffer(chunks)));
    doc.on('error', reject);
  });
  for (const [f, font] of faces) doc.registerFont(f.key, fontSource(font));

  const W = doc.page.width;
  const H = doc.page.height;
  drawFrame(doc, content, W, H);

  const root = doc.struct('Document');
  doc.addStructure(root);
  const x0 = 70;
  const width = W - 2 * x0;
  const verifySize = fitSize(doc, verifyKey, verifyLine, width, 8, 5.5, 1);
  const verifyY = H - 40 - verifySize * 1.3;
  const bottom = verifyY - 10;
  const qrTop = bottom - QR_SIZE;
  const logoHeight = content.logo ? 56 : 0;
  let top = 56;

  // The largest scale at which the whole text column fits above the signatures and the code.
  const available = qrTop - 14 - top - (logoHeight ? logoHeight + 14 : 0);
  const measure = (scale: number) =>
    blocks.map((b, i) => {
      const key = keys[i] as string;
      const size = fitSize(doc, key, b.text, width, b.maxSize * scale, b.minSize, b.maxLines);
      const height = doc.font(key).fontSize(size).heightOfString(b.text, lineOptions(width));
      return { size, height };
    });
  let scale = 1;
  let laid = measure(scale);
  const total = (l: typeof laid) => l.reduce((sum, m, i) => sum + m.height + (blocks[i]?.gapAfter ?? 0) * scale, 0);
  while (total(laid) > available && scale > 0.5) {
    scale -= 0.05;
    laid = measure(scale);
  }

  if (content.logo) {
    const logo = content.logo;
    const box: [number, number] = [200, logoHeight];
    const x = (W - box[0]) / 2;
    const y = top;
    root.add(
      doc.struct('Figure', { alt: content.labels.logoAlt }, () => {
        image(doc, logo, x, y, { fit: box, align: 'center', valign: 'center' }, 'the issuer logo');
      }),
    );
    top += logoHeight + 14;
  }
  let y = top + Math.max(0, (available - total(laid)) / 3);
  blocks.forEach((b, i) => {
    const { size, height } = laid[i] as { size: number; height: number };
    const key = keys[i] as string;
    const at = y;
    root.add(
      doc.struct(b.tag, b.lang && b.lang !== content.lang ? { lang: b.lang } : {}, () => {
        doc.font(key).fontSize(size).fillColor(b.color).text(b.text, x0, at, lineOptions(width));
      }),
    );
    y += height + b.gapAfter * scale;
  });

  drawSignatories(doc, root, content, signatoryKeys, { left: x0, right: W - x0 - QR_SIZE - 24, bottom });
  drawQr(doc, root, modules, content.labels.qrAlt, W - x0 - QR_SIZE, qrTop);
  root.add(
    doc.struct('P', {}, () => {
      doc.font(verifyKey).fontSize(verifySize).fillColor(MUTED).text(verifyLine, x0, verifyY, lineOptions(width));
    }),
  );

  doc.file(Buffer.from(content.credentialJson, 'utf8'), {
    name: CREDENTIAL_FILE_NAME,
    type: 'application/ld+json',
    description: `The signed Open Badges 3.0 credential (Data Integrity), as hosted at ${content.credentialUrl}`,
    relationship: 'Data',
    creationDate: content.createdAt,
    modifiedDate: content.createdAt,
  });
  root.end();
  doc.end();
  return finished;
}

/**
 * The chunks in one buffer of their own. Buffer.concat takes a buffer under 32 KB (half of
 * Buffer.poolSize, 64 KB on Node 24) out of a shared 64 KB slab, so a cached 20 KB certificate kept
 * its whole slab alive: the cache, bounded by the PDFs' lengths, held three times its bound.
 */
function wholeBuffer(chunks: Buffer[]): Buffer {
  const whole = Buffer.allocUnsafeSlow(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) at += c.copy(whole, at);
  return whole;
}

/** The largest size from `max` down to `min` at which `text` takes at most `lines` lines of `width`. */
function fitSize(doc: Doc, key: string, text: string, width: number, max: number, min: number, lines: number): number {
  for (let size = max; size > min; size -= 0.5) {
    doc.font(key).fontSize(size);
    if (doc.heightOfString(text, lineOptions(width)) <= lines * doc.currentLineHeight(true) + 0.5) return size;
  }
  return min;
}

/** An image the upload accepted that the PDF library still cannot read is the design's fault, said plainly. */
function image(doc: Doc, bytes: Buffer, x: number, y: number, options: PDFKit.Mixins.ImageOption, what: string) {
  try {
    doc.image(bytes, x, y, options);
  } catch {
    throw new AppError(
      'certificate_unprintable',
      `The certificate cannot draw ${what}: the PNG cannot be read. Upload it again.`,
    );
  }
}

/** Background and border: layout artifacts, outside the structure tree (ISO 32000-1 14.8.2.2). */
function drawFrame(doc: Doc, content: CertificateContent, W: number, H: number) {
  doc.markContent('Artifact', { type: 'Layout' });
  if (content.background)
    image(doc, content.background, 0, 0, { cover: [W, H], align: 'center', valign: 'center' }, 'the background');
  doc.save().strokeColor(content.color).fillColor(content.color);
  switch (content.borderStyle) {
    case 'classic':
      doc
        .lineWidth(3)
        .rect(18, 18, W - 36, H - 36)
        .stroke();
      doc
        .lineWidth(0.75)
        .rect(26, 26, W - 52, H - 52)
        .stroke();
      break;
    case 'double':
      doc
        .lineWidth(1.5)
        .rect(18, 18, W - 36, H - 36)
        .stroke();
      doc
        .lineWidth(1.5)
        .rect(24, 24, W - 48, H - 48)
        .stroke();
      break;
    case 'modern':
      doc.rect(0, 0, 16, H).fill();
      doc
        .lineWidth(0.75)
        .rect(30, 18, W - 48, H - 36)
        .stroke();
      break;
    case 'none':
      break;
  }
  doc.restore();
  doc.endMarkedContent();
}

function drawSignatories(
  doc: Doc,
  root: PDFKit.PDFStructureElement,
  content: CertificateContent,
  keys: { name: string; role: string }[],
  area: { left: number; right: number; bottom: number },
) {
  const n = content.signatories.length;
  if (n === 0) return;
  const slot = Math.min(170, (area.right - area.left) / n);
  const start = area.left + (area.right - area.left - slot * n) / 2;
  const lineY = area.bottom - 30;
  const section = doc.struct('Sect');
  root.add(section);
  content.signatories.forEach((s, i) => {
    const x = start + i * slot + 8;
    const w = slot - 16;
    const k = keys[i] as { name: string; role: string };
    const signature = s.signature;
    if (signature) {
      section.add(
        doc.struct('Figure', { alt: s.alt }, () => {
          image(
            doc,
            signature,
            x,
            lineY - 44,
            { fit: [w, 40], align: 'center', valign: 'bottom' },
            `the signature of ${s.name}`,
          );
        }),
      );
    }
    doc.markContent('Artifact', { type: 'Layout' });
    doc
      .save()
      .lineWidth(0.5)
      .strokeColor(MUTED)
      .moveTo(x, lineY)
      .lineTo(x + w, lineY)
      .stroke()
      .restore();
    doc.endMarkedContent();
    section.add(
      doc.struct('P', {}, () => {
        doc
          .font(k.name)
          .fontSize(fitSize(doc, k.name, s.name, w, 10, 6, 1))
          .fillColor(INK)
          .text(s.name, x, lineY + 4, lineOptions(w));
        if (s.role) {
          doc
            .font(k.role)
            .fontSize(fitSize(doc, k.role, s.role, w, 8.5, 5.5, 1))
            .fillColor(MUTED)
            .text(s.role, x, lineY + 17, lineOptions(w));
        }
      }),
    );
  });
  section.end();
}

/** The QR code of the verification page as vector squares (runs of dark modules per row), with its quiet zone. */
function drawQr(
  doc: Doc,
  root: PDFKit.PDFStructureElement,
  modules: { size: number; get(row: number, col: number): number },
  alt: string,
  x: number,
  y: number,
) {
  const count = modules.size;
  const unit = QR_SIZE / (count + 8);
  root.add(
    doc.struct('Figure', { alt }, () => {
      doc.save().rect(x, y, QR_SIZE, QR_SIZE).fill('#ffffff');
      for (let row = 0; row < count; row++) {
        let run = -1;
        for (let col = 0; col <= count; col++) {
          const dark = col < count && modules.get(row, col) === 1;
          if (dark && run < 0) run = col;
          if (!dark && run >= 0) {
            doc.rect(x + (run + 4) * unit, y + (row + 4) * unit, (col - run) * unit, unit);
            run = -1;
          }
        }
      }
      doc.fill('#000000').restore();
    }),
  );
}
