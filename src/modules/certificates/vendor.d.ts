// pdfkit 0.20 takes these; @types/pdfkit does not list them yet.
declare namespace PDFKit.Mixins {
  interface PDFAttachmentOptions {
    /** PDF/A-3 AFRelationship of the file to the document. */
    relationship?: 'Alternative' | 'Data' | 'Source' | 'Supplement' | 'Unspecified';
  }
}
