/** A failure the local tools (npm run seed, npm run export) explain in one line, without a stack. */
export class LocalToolError extends Error {}

/**
 * The latest code the local server's dev outbox holds for `target`, as a person reads their mail.
 * The dev outbox is the local server's, not an operation of the API: plain fetch, local mode only.
 */
export async function latestOutboxCode(base: string, target: string): Promise<string> {
  const outbox = await fetch(`${base}/dev/outbox?target=${encodeURIComponent(target)}`);
  if (outbox.status !== 200) throw new LocalToolError(`${base} has no dev outbox (${outbox.status}): run this against a local server (npm start), not a deployed API.`);
  const [latest] = (await outbox.json()) as { code: string }[];
  if (!latest) throw new LocalToolError(`The dev outbox of ${base} holds no code for ${target}.`);
  return latest.code;
}
