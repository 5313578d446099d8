import { BREAKDOWN_LABELS } from './cost-model';
import type { Breakdown, CostReport, Prices } from './cost-model';

/**
 * docs/cost.md's chart: USD per 1 000 MAU of this service (split by where the money goes) beside
 * what the anchors charge at the profile's scale, and the goal line. Plain SVG, no library, so
 * the file is small, diffable and the same on every run with the same figures.
 */
const COLORS: Record<keyof Breakdown, string> = {
  apiGateway: '#4e79a7',
  waf: '#a0cbe8',
  lambda: '#f28e2b',
  coldStarts: '#ffbe7d',
  secretReads: '#d4a6c8',
  dynamoDb: '#59a14f',
  logs: '#e15759',
  xRay: '#b07aa1',
  dataTransfer: '#9c755f',
  storage: '#76b7b2',
  liveChannel: '#edc948',
  fixedMonthly: '#8cd17d',
};
/** Where npm run cost writes the chart that docs/cost.md shows. */
export const CHART_FILE = 'cost/cost-per-thousand-mau.svg';

const ANCHOR_COLOR = '#bab0ac';
const OURS_COLOR = '#2f4b7c';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const usd = (value: number) => `$${value.toFixed(2)}`;

/** Anchor prices at the scale nearest the profile's: 10 000 or 100 000 MAU. */
export function anchorAtScale(anchor: Prices['anchors'][number], mau: number): number | null {
  return mau < Math.sqrt(10_000 * 100_000) ? anchor.at10kMauPerThousandUsd : anchor.at100kMauPerThousandUsd;
}

export function costChart(report: CostReport, prices: Prices, profileName: string): string {
  const mau = report.details.mau;
  const parts = report.details.perThousandMauByComponent;
  const rows: { label: string; segments: { value: number; color: string }[]; note?: string }[] = [
    {
      label: 'This service, every operation',
      segments: (Object.keys(COLORS) as (keyof Breakdown)[]).map((key) => ({ value: parts[key], color: COLORS[key] })),
    },
    {
      label: 'The same, transactions billed per item',
      segments: [{ value: report.details.withPerItemTransactions.perThousandMauUsd, color: OURS_COLOR }],
    },
    { label: 'This service, sign-in only', segments: [{ value: report.details.identityPerThousandMauUsd, color: OURS_COLOR }] },
    ...prices.anchors.map((anchor) => {
      const value = anchorAtScale(anchor, mau);
      return { label: anchor.name, segments: value === null ? [] : [{ value, color: ANCHOR_COLOR }], note: value === null ? 'not published at this scale' : undefined };
    }),
  ];
  const goal = report.details.goal.maxPerThousandMauUsd;
  const largest = Math.max(goal, ...rows.map((row) => row.segments.reduce((sum, segment) => sum + segment.value, 0)));
  const left = 310;
  const width = 860;
  const barWidth = width - left - 90;
  const rowHeight = 30;
  const top = 48;
  const scale = (value: number) => (value / largest) * barWidth;
  const legendKeys = (Object.keys(COLORS) as (keyof Breakdown)[]).filter((key) => parts[key] > 0);
  const legendTop = top + rows.length * rowHeight + 36;
  const height = legendTop + Math.ceil(legendKeys.length / 2) * 20 + 16;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">USD per 1 000 monthly active users a month, at ${mau.toLocaleString('en-US')} MAU (messaging excluded)</text>`,
    `<text x="12" y="38" fill="#555">npm run cost, usage profile "${escape(profileName)}"; anchors at ${mau < Math.sqrt(10_000 * 100_000) ? '10 000' : '100 000'} MAU, free tiers included (cost/prices.json)</text>`,
  ];
  rows.forEach((row, index) => {
    const y = top + index * rowHeight;
    out.push(`<text x="${left - 8}" y="${y + 19}" text-anchor="end">${escape(row.label)}</text>`);
    let x = left;
    for (const segment of row.segments) {
      const w = scale(segment.value);
      if (w > 0) out.push(`<rect x="${x.toFixed(1)}" y="${y + 6}" width="${w.toFixed(1)}" height="18" fill="${segment.color}"/>`);
      x += w;
    }
    const sum = row.segments.reduce((total, segment) => total + segment.value, 0);
    out.push(`<text x="${(x + 6).toFixed(1)}" y="${y + 19}" fill="#333">${row.note ? escape(row.note) : usd(sum)}</text>`);
  });
  const goalX = left + scale(goal);
  out.push(
    `<line x1="${goalX.toFixed(1)}" y1="${top - 4}" x2="${goalX.toFixed(1)}" y2="${top + rows.length * rowHeight}" stroke="#000" stroke-dasharray="4 3"/>`,
    `<text x="${goalX.toFixed(1)}" y="${top + rows.length * rowHeight + 16}" text-anchor="middle" fill="#000">goal ${usd(goal)} (1/5 of ${escape(report.details.goal.anchor)} list price)</text>`,
  );
  legendKeys.forEach((key, index) => {
    const x = 12 + (index % 2) * 420;
    const y = legendTop + Math.floor(index / 2) * 20;
    out.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="${COLORS[key]}"/>`, `<text x="${x + 18}" y="${y + 11}">${escape(BREAKDOWN_LABELS[key])}: ${usd(parts[key])}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
