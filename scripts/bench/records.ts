/** The listing the local upstream serves: `{ data: { records: [...] }, next: null }` with N records (10,000: 1.9 MB). */
export const RECORD_COUNTS = [1, 10, 100, 1000, 10000] as const;

export function record(i: number) {
  return {
    id: `rec_${String(i).padStart(6, '0')}`,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    email: `person${i}@example.com`,
    created_at: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    active: i % 3 !== 0,
    score: (i * 37) % 101,
    tags: ['bench', i % 2 ? 'odd' : 'even'],
  };
}

export function listing(count: number) {
  return { data: { records: Array.from({ length: count }, (_, i) => record(i + 1)) }, next: null };
}
