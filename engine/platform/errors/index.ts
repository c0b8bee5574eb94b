export { GatewayError, ERROR_STATUS, validationError } from './gateway-error.ts';
export type { ErrorBody, FieldProblem, KnownErrorCode } from './gateway-error.ts';
