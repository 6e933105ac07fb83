import net from 'node:net';

export type RawResponse = { status: number; headers: Record<string, string>; body: string };

/**
 * Sends bytes exactly as given on a fresh TCP connection and reads until the server closes it or
 * goes quiet: the only way to send what an HTTP client library refuses to (duplicate
 * Content-Length, a body both chunked and sized, a CR inside a header value, pipelined requests).
 */
export function rawExchange(port: number, payload: string | Buffer, quietMs = 400): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(finish, quietMs);
    };
    socket.on('connect', () => {
      socket.write(payload);
      arm();
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      arm();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? finish() : reject(error)));
  });
}

/** Splits a byte stream into its responses (bodies sized by Content-Length; enough for this API). */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    const bodyBytes = Buffer.from(rest.slice(bodyStart), 'utf8').subarray(0, length);
    const body = bodyBytes.toString('utf8');
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    rest = rest.slice(bodyStart + body.length);
  }
  return out;
}

export function httpRequest(lines: string[], body = ''): string {
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
