import { type DragEvent, useEffect, useRef, useState } from 'react';
import { ErrorAnswer } from '../../../../common/contract/errors.ts';
import { FILE_LIMITS, fileSkipReason, SUPPORTED_FILE_EXTENSIONS } from '../../../../common/contract/files.ts';
import { isFinalJobStatus, JOB_NOTES, type JobView } from '../../../../common/contract/jobs.ts';
import { limitSize } from '../../../../common/contract/limits.ts';
import { uploadFile } from '../../api/items.ts';
import { getJob } from '../../api/jobs.ts';
import { formatBytes, formatNumber } from '../../format.ts';
import { chosenFiles, droppedFiles, type PickedFile } from './dropped-files.ts';
import { documentHref } from './document-view.tsx';

/** The integration dashboard uploads belong to, as on the API by default. */
const INTEGRATION = 'files';
/** Files sent at once: each is its own request, so its progress and its refusal are its own. */
const PARALLEL_UPLOADS = 2;
const POLL_MS = 1_000;
/** Jobs read per poll: with many files waiting for the pipeline, each is read in turn, not all every second. */
const POLLS_PER_TICK = 8;

type Phase = 'not sent' | 'waiting' | 'uploading' | 'queued' | 'processing' | 'indexed' | 'unchanged' | 'failed' | 'cancelled';

type Upload = {
  id: number;
  path: string;
  bytes: number;
  phase: Phase;
  sent: number;
  /** Why it was not sent, was refused, or failed. */
  reason: string | null;
  jobId: string | null;
  file: File | null;
};

/** The colour of a state's line: done well, done badly, left out, or under way. */
const TONE: Record<Phase, string> = {
  'not sent': 'muted',
  waiting: 'info',
  uploading: 'info',
  queued: 'info',
  processing: 'info',
  indexed: 'ok',
  unchanged: 'muted',
  failed: 'bad',
  cancelled: 'bad',
};

const FINAL: Phase[] = ['not sent', 'indexed', 'unchanged', 'failed', 'cancelled'];

function refusal(error: unknown): string {
  if (error instanceof ErrorAnswer) return error.details.map((d) => d.message).join('; ') || error.message;
  return error instanceof Error ? error.message : String(error);
}

function describe(upload: Upload): string {
  switch (upload.phase) {
    case 'not sent':
      return `Skipped: ${upload.reason}`;
    case 'waiting':
      return 'Waiting to upload';
    case 'uploading':
      // The bytes sent include the form's own few hundred: never past 100%.
      return `Uploading ${upload.bytes ? Math.min(100, Math.floor((upload.sent / upload.bytes) * 100)) : 0}%`;
    case 'queued':
      return 'Uploaded, waiting for the pipeline';
    case 'processing':
      return 'Extracting and indexing';
    case 'indexed':
      return upload.reason ? `Indexed: ${upload.reason}` : 'Indexed';
    case 'unchanged':
      return 'Skipped: identical to the file already indexed';
    case 'failed':
      return `Failed: ${upload.reason}`;
    case 'cancelled':
      return `Cancelled: ${upload.reason ?? JOB_NOTES.deleted}`;
  }
}

function phaseOfJob(job: JobView): Phase {
  return job.status === 'succeeded' ? 'indexed' : job.status === 'skipped' ? 'unchanged' : job.status;
}

/**
 * Drag and drop (files and whole folders) or choose files to upload into a knowledge base, with
 * each file's upload progress and then its job followed to indexed, skipped or failed. Hidden and
 * unsupported files are not sent, with the reason shown, by the rule `localiq files add` follows.
 */
export function FileUploadPanel({ knowledgeBaseId, onIndexed }: { knowledgeBaseId: string; onIndexed: () => void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const nextId = useRef(0);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const active = useRef(0);
  const polledAt = useRef(new Map<number, number>());
  const live = useRef(true);
  const uploadsRef = useRef(uploads);
  uploadsRef.current = uploads;

  const update = (id: number, change: Partial<Upload>) =>
    setUploads((all) => all.map((u) => (u.id === id ? { ...u, ...change } : u)));

  useEffect(() => {
    live.current = true;
    folderInput.current?.setAttribute('webkitdirectory', '');
    return () => {
      live.current = false;
    };
  }, []);

  // Starts waiting uploads while fewer than PARALLEL_UPLOADS are under way.
  useEffect(() => {
    for (const upload of uploads) {
      if (active.current >= PARALLEL_UPLOADS) break;
      if (upload.phase !== 'waiting' || !upload.file) continue;
      active.current++;
      const { id, file, path } = upload;
      update(id, { phase: 'uploading', file: null });
      const form = new FormData();
      form.append('externalId', path);
      form.append('file', file, file.name);
      uploadFile(knowledgeBaseId, form, (sent) => live.current && update(id, { sent }))
        .then((ack) => live.current && update(id, { phase: 'queued', sent: upload.bytes, jobId: ack.jobIds[0] ?? null }))
        .catch((error: unknown) => live.current && update(id, { phase: 'failed', reason: refusal(error) }))
        .finally(() => {
          active.current--;
          // Wakes this effect for the next waiting file.
          if (live.current) setUploads((all) => [...all]);
        });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [uploads, knowledgeBaseId]);

  // Follows the jobs of uploaded files until each is final.
  const following = uploads.some((u) => u.jobId && (u.phase === 'queued' || u.phase === 'processing'));
  useEffect(() => {
    if (!following) return;
    const timer = setInterval(async () => {
      const open = uploadsRef.current
        .filter((u) => u.jobId && (u.phase === 'queued' || u.phase === 'processing'))
        .sort((a, b) => (polledAt.current.get(a.id) ?? 0) - (polledAt.current.get(b.id) ?? 0))
        .slice(0, POLLS_PER_TICK);
      let indexed = false;
      for (const upload of open) {
        polledAt.current.set(upload.id, Date.now());
        try {
          const job = await getJob(upload.jobId!, { knowledgeBaseId, integrationId: INTEGRATION });
          const phase = phaseOfJob(job);
          if (!live.current) return;
          // A failed job's reason is its error; one that ended otherwise may have a note (OCR, superseded).
          const reason = !isFinalJobStatus(job.status) ? null : job.status === 'failed' ? job.lastError : job.note;
          if (phase !== upload.phase) update(upload.id, { phase, reason });
          indexed ||= phase === 'indexed';
        } catch {
          // A failed poll is tried again on the next tick.
        }
      }
      if (indexed) onIndexed();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [following, knowledgeBaseId, onIndexed]);

  const add = (picked: PickedFile[], unread: Array<{ path: string; reason: string }> = []) => {
    const added: Upload[] = picked.map(({ file, path }) => {
      const reason = fileSkipReason(path, file.size, FILE_LIMITS.fileBytes);
      return { id: nextId.current++, path, bytes: file.size, phase: reason ? 'not sent' : 'waiting', sent: 0, reason, jobId: null, file: reason ? null : file };
    });
    for (const folder of unread) {
      added.push({ id: nextId.current++, path: folder.path, bytes: 0, phase: 'not sent', sent: 0, reason: `could not be read (${folder.reason})`, jobId: null, file: null });
    }
    setUploads((all) => [...all, ...added]);
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    void droppedFiles(event.dataTransfer).then(({ files, unread }) => add(files, unread));
  };

  const counts = (phases: Phase[]) => uploads.filter((u) => phases.includes(u.phase)).length;
  const done = uploads.filter((u) => FINAL.includes(u.phase)).length;

  return (
    <section className="panel upload" aria-labelledby="upload-heading">
      <h2 id="upload-heading">Add files</h2>
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="dropzone"
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>
          Drop files or whole folders here, or choose them. Each file becomes one item of <strong>{knowledgeBaseId}</strong> (integration{' '}
          <code>{INTEGRATION}</code>).
        </p>
        <div className="page-actions">
          <button type="button" className="primary" onClick={() => filesInput.current?.click()}>
            Choose files
          </button>
          <button type="button" className="secondary" onClick={() => folderInput.current?.click()}>
            Choose a folder
          </button>
        </div>
        <p className="hint">
          {SUPPORTED_FILE_EXTENSIONS.join(', ')}; up to {limitSize(FILE_LIMITS.fileBytes)} each. Hidden files and other kinds are skipped.
        </p>
        <input
          ref={filesInput}
          type="file"
          multiple
          hidden
          aria-label="Files to upload"
          data-testid="choose-files"
          onChange={(event) => {
            if (event.currentTarget.files) add(chosenFiles(event.currentTarget.files));
            event.currentTarget.value = '';
          }}
        />
        <input
          ref={folderInput}
          type="file"
          multiple
          hidden
          aria-label="Folder to upload"
          data-testid="choose-folder"
          onChange={(event) => {
            if (event.currentTarget.files) add(chosenFiles(event.currentTarget.files));
            event.currentTarget.value = '';
          }}
        />
      </div>
      {uploads.length ? (
        <>
          <p className="hint" aria-live="polite" data-testid="upload-summary">
            {done < uploads.length ? `${formatNumber(done)} of ${formatNumber(uploads.length)} files done. ` : `All ${formatNumber(uploads.length)} files done: `}
            {formatNumber(counts(['indexed']))} indexed, {formatNumber(counts(['unchanged', 'not sent']))} skipped, {formatNumber(counts(['failed', 'cancelled']))}{' '}
            failed.
          </p>
          <ul className="upload-list" aria-label="Uploads">
            {uploads.map((u) => (
              <li key={u.id} data-testid="upload" data-path={u.path} data-phase={u.phase}>
                <div className="upload-name">
                  {u.phase === 'indexed' ? (
                    <a href={documentHref({ knowledgeBaseId, integrationId: INTEGRATION, externalId: u.path })}>{u.path}</a>
                  ) : (
                    <span>{u.path}</span>
                  )}
                  <span className="hint">{formatBytes(u.bytes)}</span>
                </div>
                {u.phase === 'uploading' || u.phase === 'waiting' ? (
                  <progress max={u.bytes || 1} value={Math.min(u.sent, u.bytes)} aria-label={`Upload of ${u.path}`} />
                ) : null}
                <p className={`upload-state ${TONE[u.phase]}`} data-testid="upload-state">
                  {describe(u)}
                </p>
              </li>
            ))}
          </ul>
          {done === uploads.length ? (
            <button type="button" className="secondary" onClick={() => setUploads([])}>
              Clear the list
            </button>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
