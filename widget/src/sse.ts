/**
 * Reads Server-Sent Events from a fetch body (EventSource cannot POST or send a bearer token).
 * Each event's data is JSON; its name comes from the `event:` line, or from the data's `type`.
 */
export async function readEvents(
  body: NonNullable<Response['body']>,
  onEvent: (type: string, data: Record<string, unknown>) => void,
): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let type = '';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) type = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (!data.length) continue;
      const parsed = JSON.parse(data.join('\n')) as Record<string, unknown>;
      onEvent(type || String(parsed.type ?? 'message'), parsed);
    }
  }
}
