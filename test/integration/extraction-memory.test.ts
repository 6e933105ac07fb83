import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ExtractionError } from '../../server/pipeline/extract/document.ts';
import { FileExtractor } from '../../server/pipeline/extract/extractor.ts';
import { deflateBombPdf, pdfFile } from '../helpers/document-fixtures.ts';
import { api, startPipelineServer } from '../helpers/pipeline-app.ts';
import { tempDataDir } from '../helpers/temp-data.ts';

/**
 * A decompression bomb (a small PDF whose page inflates to hundreds of MB of spaces) against the
 * extraction memory cap, lowered here so the bomb stays quick to make: the cap must hold for what
 * pdf.js decodes outside the JavaScript heap, and what the reader took must go back.
 */
const CAP_MB = 200;
const BOMB_BYTES = 700_000_000;

type Server = Awaited<ReturnType<typeof startPipelineServer>>;

/** The test process's own resident memory, sampled every 20 ms until stopped: its peak over the start. */
function watchOwnMemory() {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.round((Math.max(peak, process.memoryUsage.rss()) - start) / 1e6);
    },
  };
}

describe('the extraction memory cap holds for decoded streams (a decompression bomb)', () => {
  let folder: string;
  before(async () => {
    folder = tempDataDir();
    fs.writeFileSync(path.join(folder, 'bomb.pdf'), await deflateBombPdf(BOMB_BYTES));
    fs.writeFileSync(path.join(folder, 'ok.pdf'), await pdfFile([['A small ordinary page.']]));
  });

  it('the bomb fails with the cap in its reason, its memory is not the caller\'s, and the next file is read', async () => {
    assert.ok(fs.statSync(path.join(folder, 'bomb.pdf')).size < 2_000_000, 'a small file on disk');
    const extractor = new FileExtractor({ timeoutMs: 300_000, memoryMb: CAP_MB });
    try {
      // The reader started and warm, so what follows is the bomb's cost alone.
      assert.equal((await extractor.extract(path.join(folder, 'ok.pdf'), 'pdf')).sections[0]!.text, 'A small ordinary page.');
      const memory = watchOwnMemory();
      await assert.rejects(extractor.extract(path.join(folder, 'bomb.pdf'), 'pdf'), (error: Error) => {
        assert.ok(error instanceof ExtractionError, error.message);
        assert.match(error.message, new RegExp(`needed more than ${CAP_MB} MB of memory`));
        return true;
      });
      const grewMb = memory.stop();
      assert.ok(grewMb < 150, `the caller's own memory grew by ${grewMb} MB while the bomb was read`);
      const next = await extractor.extract(path.join(folder, 'ok.pdf'), 'pdf');
      assert.equal(next.sections[0]!.text, 'A small ordinary page.');
    } finally {
      await extractor.close();
    }
  });

  describe('through the server', () => {
    let server: Server;
    before(async () => {
      server = await startPipelineServer({ workers: 2, extraction: { memoryMb: CAP_MB, ocr: false } });
    });
    after(() => server.stop());

    const job = async (jobId: string, kb: string) => (await api(server, 'GET', `/jobs/${jobId}?knowledgeBaseId=${kb}`)).body;
    /** Polls a job until it leaves the queue; the whole job in the failure message otherwise. */
    async function settled(jobId: string, kb: string, timeoutMs = 180_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = await job(jobId, kb);
        if (found.status !== 'queued' && found.status !== 'processing') return found;
        assert.ok(Date.now() < deadline, `${jobId} still ${found.status}: ${JSON.stringify(found)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it('an uploaded bomb fails naming the cap, and a plain push is indexed all the same', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(fs.readFileSync(path.join(folder, 'bomb.pdf')))]), 'bomb.pdf');
      const res = await fetch(`${server.url}/knowledge-bases/bombs/files`, { method: 'POST', headers: { 'x-api-key': server.key }, body: form });
      assert.equal(res.status, 200, await res.clone().text());
      const pushed = await api(server, 'POST', '/ingest', {
        integrationId: 'shop',
        knowledgeBaseId: 'bombs',
        sourceType: 'ARTICLE',
        externalId: 'hours',
        data: { title: 'Opening hours', content: 'The shop opens at nine on weekdays and at ten on Saturdays.' },
      });
      assert.equal(pushed.status, 200, JSON.stringify(pushed.body));

      const plain = await settled('shop-hours', 'bombs');
      assert.equal(plain.status, 'succeeded', JSON.stringify(plain));
      const bomb = await settled('files-bomb.pdf', 'bombs');
      assert.equal(bomb.status, 'failed', JSON.stringify(bomb));
      assert.match(bomb.lastError, new RegExp(`^bomb\\.pdf: reading it needed more than ${CAP_MB} MB of memory`), JSON.stringify(bomb));
      assert.equal(bomb.attempts, 1, 'a file at fault is not tried again');
      const found = await api(server, 'GET', '/knowledge-bases/bombs/items/shop/hours');
      assert.equal(found.status, 200, JSON.stringify(found.body));
    });
  });
});
