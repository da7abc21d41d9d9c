import { encodeSync as encodeItxt } from 'png-chunk-itxt';
import encodeChunks from 'png-chunks-encode';
import extractChunks from 'png-chunks-extract';

/** The iTXt keyword of an Open Badges 3.0 baked PNG (OB 3.0, "Badge Baking"). */
export const PNG_CREDENTIAL_KEYWORD = 'openbadgecredential';
/** The OB 2.0 keyword: a PNG carries one baked badge, so an earlier baking of either kind goes. */
const BAKED_KEYWORDS = new Set([PNG_CREDENTIAL_KEYWORD, 'openbadges']);

function isBakedChunk(chunk: { name: string; data: Uint8Array }): boolean {
  if (chunk.name !== 'iTXt') return false;
  const end = chunk.data.indexOf(0);
  const keyword = Buffer.from(chunk.data.subarray(0, end < 0 ? chunk.data.length : end)).toString('latin1');
  return BAKED_KEYWORDS.has(keyword);
}

/**
 * The PNG with the credential baked in: one uncompressed iTXt chunk `openbadgecredential` holding
 * the credential's JSON, right after the header (the spec allows exactly one; any baked chunk the
 * image already had is dropped).
 */
export function bakePng(png: Buffer, credentialJson: string): Buffer {
  const chunks = extractChunks(png).filter((chunk) => !isBakedChunk(chunk));
  const baked = {
    name: 'iTXt',
    data: encodeItxt({
      keyword: PNG_CREDENTIAL_KEYWORD,
      compressionFlag: false,
      compressionMethod: 0,
      languageTag: '',
      translatedKeyword: '',
      text: credentialJson,
    }),
  };
  chunks.splice(1, 0, baked);
  return Buffer.from(encodeChunks(chunks));
}
