export { GatewayError, ERROR_STATUS, MAX_PROBLEMS, problemsNotListed, validationError } from './gateway-error.ts';
export type { ErrorBody, FieldProblem, KnownErrorCode } from './gateway-error.ts';
