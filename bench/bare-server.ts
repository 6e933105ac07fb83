// The reference for the ingest benchmark: a bare Fastify route that answers the same JSON as
// POST /ingest without authenticating, validating or storing anything.
import Fastify from 'fastify';

const app = Fastify();
app.post('/ingest', async () => ({ status: 'queued', jobId: 'bench-item' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0} \n`);
