/** The one company the store benchmark's records belong to (store-seed.ts writes them, store.ts queries them). */
export const BENCH_COMPANY_ID = 'cmp_bench';
