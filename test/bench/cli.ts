/** What `npm run bench` and `npm run cost` share on the command line and in their printed report. */

/** The value after `name` in `args` (`--json FILE`), if given. */
export function optionOf(args: readonly string[], name: string): string | undefined {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
}

/** Progress on stderr, stamped with the seconds since the run started: `[tag  12 s] message`. */
export function progressLog(tag: string): (message: string) => void {
  const started = performance.now();
  return (message) => process.stderr.write(`[${tag} ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);
}

/** A plain-text table: the first column left-aligned, the others right-aligned, a rule under the header. */
export function textTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const line = (row: string[]) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
