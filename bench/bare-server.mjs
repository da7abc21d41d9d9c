// The HTTP ceiling: a bare Fastify JSON route on the same machine, measured in the same run.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/bare', async (request) => ({ id: request.body?.id ?? null, authentic: true, status: 'valid', valid: true }));
app.get('/ready', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
