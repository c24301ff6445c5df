/** Server-sent events as tests read them: one block of `event:` and `data:` lines to an event. */
// biome-ignore lint/suspicious/noExplicitAny: tests read payloads freely
export function parseSseBlock(block: string): { event: string; data: any } | null {
  const lines = block.split('\n');
  const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
  const data = lines
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6))
    .join('\n');
  return event ? { event, data: JSON.parse(data) } : null;
}
