export { compileExpression, guardedJsonata, limitsOf } from './compile.ts';
export type { GuardedExpression } from './compile.ts';
export { evaluateGuarded, toJson } from './evaluate.ts';
export { MappingError } from './mapping-error.ts';
export type { ExpressionOrigin, MappingErrorDetails, MappingFailure } from './mapping-error.ts';
export { DEFAULT_MAPPING_LIMITS } from './limits.ts';
export type { MappingLimits } from './limits.ts';
export { MappingWorkers, mappingWorkersFromEnv, WORKER_IN_FLIGHT_BYTES } from './workers/mapping-workers.ts';
export type { Mapped, MappingWorkerSettings } from './workers/mapping-workers.ts';
