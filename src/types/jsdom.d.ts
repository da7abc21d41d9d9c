/**
 * The part of jsdom the SVG sanitiser uses (a window for DOMPurify). @types/jsdom is not used: it
 * pulls the DOM library's globals into the whole program, where they shadow Node's.
 */
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string);
    readonly window: unknown;
  }
}
