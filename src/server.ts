import { enableCompileCache } from 'node:module';

// Node's on-disk cache of compiled code (os.tmpdir()/node-compile-cache, or NODE_COMPILE_CACHE):
// most of a start is loading and compiling the ~1,800 modules the server imports, and from the
// second start on V8 takes their code from the cache. It is enabled before anything else is
// imported, so the server's own imports (main.ts and everything below it) are cached too.
enableCompileCache();
await import('./main.js');
