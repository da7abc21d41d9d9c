import { defineCatalogue } from '../../../core/locale.js';
import { de } from './de.js';
import { en, type WalletPageMessages } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { nl } from './nl.js';

export type { WalletPageMessages };

/** The wallet offer page's words in each supported language. */
export const walletPageMessages = defineCatalogue<WalletPageMessages>('wallet-page', { en, fr, de, es, nl });
