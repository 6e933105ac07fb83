import autocannon from 'autocannon';

/** The item the ingest benches push: unique external ids under a prefix, a few hundred bytes. */
export function benchItem(n: number, prefix: string) {
  return {
    integrationId: 'bench',
    knowledgeBaseId: 'kb-bench',
    sourceType: 'ARTICLE',
    externalId: `${prefix}-${n}`,
    data: { title: `Item ${n}`, content: `Benchmark item number ${n}. `.repeat(20), url: `https://example.com/items/${n}` },
  };
}

/** Single-item pushes to `url`'s `/ingest` at a fixed concurrency for `seconds`; `stop()` ends them early. */
export function pushLoad(url: string, key: string, prefix: string, connections: number, seconds: number) {
  let n = 0;
  return autocannon({
    url: `${url}/ingest`,
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(benchItem(n++, prefix)) }) }],
  });
}
