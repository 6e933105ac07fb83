// Push a shop's products to LocalIQ, follow their jobs, and delete a discontinued product.
// Runs on Node 20+ (built-in fetch): LOCALIQ_API_KEY=liq_… npx tsx push-products.mts
const BASE_URL = process.env.LOCALIQ_URL ?? 'http://127.0.0.1:7410';
const API_KEY = process.env.LOCALIQ_API_KEY ?? '';
const BATCH_SIZE = 500; // at most 1,000 items (and 10 MB) per bulk request
const FINAL = ['succeeded', 'skipped', 'failed', 'cancelled'];

type Product = { sku: string; name: string; description: string; price: string; updatedAt: string };

// In a real integration these come from your shop's database.
const products: Product[] = [
  { sku: 'sku-100', name: 'Trail shoe', description: 'Light trail running shoe with a grippy sole.', price: '119.00 EUR', updatedAt: '2026-05-02T10:00:00Z' },
  { sku: 'sku-101', name: 'Running socks', description: 'Cushioned merino socks, pack of three.', price: '21.00 EUR', updatedAt: '2026-05-02T10:00:00Z' },
  { sku: 'sku-102', name: 'Rain shell', description: 'Packable waterproof shell for running.', price: '149.00 EUR', updatedAt: '2026-05-03T08:30:00Z' },
];
const discontinued = ['sku-099'];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class LocalIqError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** One API call: waits out 429 as Retry-After says, retries 5xx and network errors with backoff. */
async function call(method: string, path: string, body?: unknown): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(BASE_URL + path, {
        method,
        headers: { 'x-api-key': API_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      if (attempt >= 5) throw error;
      await sleep(500 * 2 ** attempt);
      continue;
    }
    if (response.status === 429) {
      const seconds = Number(response.headers.get('retry-after') ?? '1');
      console.error(`rate limited, retrying in ${seconds}s`);
      await sleep(seconds * 1000);
      continue;
    }
    if (response.status >= 500 && attempt < 5) {
      await sleep(500 * 2 ** attempt);
      continue;
    }
    const payload = await response.json();
    if (!response.ok) throw new LocalIqError(response.status, payload.code, `${payload.code}: ${payload.message}`);
    return payload;
  }
}

const items = products.map((p) => ({
  integrationId: 'shop',
  knowledgeBaseId: 'main',
  sourceType: 'PRODUCT',
  externalId: p.sku,
  // Your own version marker as the hash: an unchanged product is skipped without reprocessing.
  data: { title: p.name, content: p.description, sourceData: { price: p.price }, hash: p.updatedAt },
}));

const jobIds: string[] = [];
for (let i = 0; i < items.length; i += BATCH_SIZE) {
  const ack = await call('POST', '/ingest/bulk', { items: items.slice(i, i + BATCH_SIZE) });
  console.log(`queued ${ack.jobCount} jobs, estimated ${ack.estimatedTime}`);
  jobIds.push(...ack.jobIds);
}

// Follow every job until it is final.
const pending = new Set(jobIds);
while (pending.size > 0) {
  for (const jobId of pending) {
    const job = await call('GET', `/jobs/${encodeURIComponent(jobId)}?knowledgeBaseId=main&integrationId=shop`);
    if (FINAL.includes(job.status)) {
      // A failed job's error, or a note on how another ended ("superseded by a newer version").
      const said = job.lastError ?? job.note;
      console.log(`${job.externalId}: ${job.status}${said ? ` (${said})` : ''}`);
      pending.delete(jobId);
    }
  }
  if (pending.size > 0) await sleep(1000);
}

// Remove what the shop no longer sells; an item that is already gone answers 404.
for (const sku of discontinued) {
  try {
    await call('DELETE', `/items/main/shop/${encodeURIComponent(sku)}`);
    console.log(`${sku}: deleted`);
  } catch (error) {
    if (!(error instanceof LocalIqError && error.status === 404)) throw error;
    console.log(`${sku}: already gone`);
  }
}
