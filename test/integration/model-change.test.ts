import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { writeTinyOnnxModel } from '../../scripts/make-test-onnx-model.ts';
import { api, startPipelineServer, waitForIdle } from '../helpers/pipeline-app.ts';
import { item, tempDataDir } from '../helpers/temp-data.ts';

describe('changing the embedding model', () => {
  it('re-embeds every item in the background and searches with the new model', async () => {
    const dataDir = tempDataDir();
    const first = await startPipelineServer({}, dataDir);
    await api(first, 'POST', '/ingest/bulk', {
      items: [
        item({ externalId: 'a' }, { title: 'Opening hours', content: 'Open Monday to Friday.' }),
        item({ externalId: 'b' }, { title: 'Returns', content: 'Returns within 30 days.' }),
      ],
    });
    await waitForIdle(first);
    await first.stop();

    // A small generated ONNX model stands in for a user-supplied one (its vectors mean nothing).
    const modelDir = writeTinyOnnxModel(path.join(tempDataDir(), 'tiny model'));
    const second = await startPipelineServer({ embedder: { kind: 'onnx-folder', path: modelDir } }, dataDir);
    try {
      await waitForIdle(second);
      const read = await api(second, 'GET', '/knowledge-bases/kb-main/items/cms/a');
      assert.equal(read.body.embedder, 'onnx:tiny model');
      assert.equal(read.body.latestJob.status, 'succeeded');
      assert.equal(read.body.latestJob.priority, 'low', 're-embedding runs behind fresh work');
      const found = await api(second, 'POST', '/knowledge-bases/kb-main/search', { query: 'returns', mode: 'semantic' });
      assert.equal(found.body.mode, 'semantic');
      assert.equal(found.body.results.length, 2, 'both items have vectors of the new model');
    } finally {
      await second.stop();
    }
  });
});
