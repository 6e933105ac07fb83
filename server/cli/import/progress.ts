import type { ImportProgress } from './run-import.ts';

/**
 * Progress on stderr, so stdout stays clean for the report: a redrawn bar on a terminal,
 * plain lines (at most one every five seconds, never the same twice) when stderr goes to a file or a pipe.
 */
export type UploadProgress = { sentBytes: number; totalBytes: number; sentFiles: number; totalFiles: number };

export function createProgress(stream: NodeJS.WriteStream, quiet = false): ImportProgress & { uploading(p: UploadProgress): void; end(): void } {
  const tty = Boolean(stream.isTTY) && !quiet;
  let drawn = false;
  let lastPlain = 0;
  let lastLine = '';
  let lastDraw = 0;

  const bar = (fraction: number) => {
    const width = 28;
    const filled = Math.round(Math.max(0, Math.min(1, fraction)) * width);
    return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%`;
  };
  const draw = (line: string, force = false) => {
    const now = Date.now();
    if (tty) {
      if (!force && now - lastDraw < 100) return;
      lastDraw = now;
      stream.write(`\r\x1b[2K${line}`);
      drawn = true;
    } else if (line !== lastLine && (force || now - lastPlain >= 5_000)) {
      lastPlain = now;
      lastLine = line;
      stream.write(`${line}\n`);
    }
  };
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };

  return {
    reading({ bytesRead, totalBytes, rows, itemsSent, invalid, finished }) {
      // The file is read a little ahead of the rows sent: 100% only once everything is sent.
      const fraction = finished ? 1 : Math.min(0.99, totalBytes ? bytesRead / totalBytes : 0);
      draw(`import ${bar(fraction)} ${rows} rows read, ${itemsSent} items sent${invalid ? `, ${invalid} invalid` : ''}`, finished);
    },
    uploading({ sentBytes, totalBytes, sentFiles, totalFiles }) {
      const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
      draw(`upload ${bar(totalBytes ? sentBytes / totalBytes : 1)} ${sentFiles}/${totalFiles} files, ${mb(sentBytes)}/${mb(totalBytes)} MB`, sentFiles === totalFiles);
    },
    following({ done, total }) {
      draw(`jobs   ${bar(total ? done / total : 1)} ${done}/${total} finished`, done === total);
    },
    note(text) {
      clear();
      stream.write(`${text}\n`);
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
