// A check's log is read to its end and only its tail kept (activities/roadmap/landing-forge.ts keeps
// 64 KB): a CI log may run to hundreds of megabytes, and its failure is reported at the end.

/** The last `maxBytes` of a log, and how many bytes before them were not kept. */
export interface LogTail {
  text: string;
  droppedBytes: number;
}

/** The tail of a byte stream, holding at most about `maxBytes` plus one chunk in memory while it reads. */
export async function streamTail(stream: AsyncIterable<Uint8Array>, maxBytes: number): Promise<LogTail> {
  const chunks: Buffer[] = [];
  let held = 0;
  let dropped = 0;
  for await (const chunk of stream) {
    chunks.push(Buffer.from(chunk));
    held += chunk.length;
    while (chunks.length > 1 && held - chunks[0].length >= maxBytes) {
      held -= chunks[0].length;
      dropped += chunks.shift()!.length;
    }
  }
  const all = Buffer.concat(chunks);
  const cut = Math.max(0, all.length - maxBytes);
  return { text: all.subarray(cut).toString('utf8'), droppedBytes: dropped + cut };
}

/** The tail of a log already in memory. */
export function textTail(text: string, maxBytes: number): LogTail {
  const bytes = Buffer.from(text, 'utf8');
  const cut = Math.max(0, bytes.length - maxBytes);
  return { text: cut ? bytes.subarray(cut).toString('utf8') : text, droppedBytes: cut };
}

/** The tail as kept: from its first whole line, after a line saying how much went before, when anything did. */
export function keptLog({ text, droppedBytes }: LogTail): string {
  if (!droppedBytes) return text;
  const whole = text.replace(/^\uFFFD+/, '');
  const firstLine = whole.indexOf('\n');
  return `[… ${droppedBytes} earlier bytes of the log not kept]\n${firstLine >= 0 ? whole.slice(firstLine + 1) : whole}`;
}
