import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../../core/errors.js';

/**
 * The console's own policy: everything from this origin, no inline script or style, nothing may
 * frame it, and forms and the API are this origin's only. It may frame a `blob:` of its own making:
 * the certificate designer's live preview, a PDF the API drew (a blob URL belongs to the origin
 * whose script made it).
 */
export const CONSOLE_CSP =
  "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Where `npm run build` writes the console: <root>/dist/console, whether this file runs from
 * src/ (tsx) or from dist/src/ (the built service).
 */
function defaultConsoleDir(): string {
  const up = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  return basename(up) === 'dist' ? join(up, 'console') : join(up, 'dist', 'console');
}

export interface ConsoleUiOptions {
  /** The built console (index.html and assets/); defaults to dist/console. */
  dir?: string;
}

/**
 * GET /console and /console/*: the web console, a single-page app that calls /api/v1 itself.
 * Hashed assets are immutable and sent precompressed (.br/.gz) by Accept-Encoding; every other
 * path under /console is the app's own route and answers index.html. Without a build, 503.
 */
export const consoleUiRoutes: FastifyPluginAsync<ConsoleUiOptions> = async (app, options) => {
  const dir = options.dir ?? defaultConsoleDir();
  const hidden = { schema: { hide: true } };

  if (!existsSync(join(dir, 'index.html'))) {
    const unbuilt = async () => {
      throw new AppError('service_unavailable', 'The console is not built: run `npm run build`.');
    };
    app.get('/console', hidden, unbuilt);
    app.get('/console/*', hidden, unbuilt);
    return;
  }

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('content-security-policy', CONSOLE_CSP);
    return payload;
  });
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    wildcard: false,
    index: false,
    preCompressed: true,
    schemaHide: true,
    setHeaders(reply, path) {
      const immutable = path.startsWith(join(dir, 'assets') + sep);
      reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const sendIndex = (_request: unknown, reply: FastifyReply) => reply.sendFile('index.html');
  app.get('/console', hidden, sendIndex);
  app.get('/console/*', hidden, sendIndex);
  app.get('/console/assets/*', hidden, async () => {
    throw new AppError('not_found', 'No such console asset.');
  });
  // Browsers ask for /favicon.ico on every page of the origin (the verification pages too), whatever
  // the page links: it answers the console's icon, an SVG, which every current browser takes there.
  // A console built without assets (an index page alone) has no icon: then there is no route.
  const assets = join(dir, 'assets');
  const icon = existsSync(assets)
    ? readdirSync(assets).find((name) => /^favicon-[0-9a-f]{8}\.svg$/.test(name))
    : undefined;
  if (icon) {
    app.get('/favicon.ico', hidden, (_request, reply) =>
      reply.header('cache-control', 'public, max-age=86400').type('image/svg+xml').sendFile(join('assets', icon)),
    );
  }
};
