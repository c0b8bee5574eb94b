export { buildOutboundRequest, CURSOR_ARGUMENT, type BuildRequestInput } from './build-request.ts';
export { evaluateMapperPlainly } from './default-evaluator.ts';
export { ARGUMENT_RULES, type ArgumentRule } from './rules.ts';
export { fillTemplate, headerText } from './host-variables.ts';
export { escapeText } from './send-values.ts';
export { parseIsoDate, formatDate } from './dates.ts';
export { countryOptions, isCountryCode } from './lists/countries.ts';
export { currencyOptions, isCurrencyCode } from './lists/currencies.ts';
export type { ArgumentDependencies, BuiltRequest, HostValues, ListOption, LookupOptions, MapperEvaluator, MapperInput, OutboundRequest } from './types.ts';
