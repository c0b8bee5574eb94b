import { RESPONSE_MAPPING } from '../../scripts/bench/bench-app.ts';

/**
 * The benchmark's mapping (renames and joins fields of every record of `GET /records`) as the action
 * `list-records` of the run fixture's shop app: its path under the definitions folder, and its YAML.
 */
export const BENCH_LISTING_ACTION: Record<string, string> = {
  'shop/versions/1/actions/list-records.yaml': [
    'id: list-records',
    'slug: list-records',
    'name: List records',
    'operation: list',
    'method: GET',
    'path: /records',
    'response: |',
    ...RESPONSE_MAPPING.split('\n').map((line) => `  ${line}`),
    '',
  ].join('\n'),
};
