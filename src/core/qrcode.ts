import { loadedOnce } from './loaded-once.js';

/**
 * The qrcode library, loaded at the first QR code drawn (a verification page, a wallet offer): it
 * and pngjs under it are about 60 modules the server's start does not need.
 */
export const qrcode = loadedOnce(async () => (await import('qrcode')).default);
