export { DefinitionsRegistry, type DefinitionsStatus } from './registry.ts';
export { watchDefinitions } from './watch.ts';
export { DefinitionsLoader, loadDefinitions, type LoadResult } from './loader.ts';
export { AnalysisCache } from './analysis-cache.ts';
export { resolveAppVersion, resolveAction, type AppRef, type ActionRef } from './resolve.ts';
export { formatProblem, PROBLEM_CODES, type DefinitionProblem, type ProblemCode, type SourceLocation } from './problems.ts';
export type { CompiledExpression } from './expressions.ts';
export type { ActionEntry, ApiEntry, AppEntry, AppVersion, ArgumentEntry, AuthEntry, DefinitionsSnapshot, PaginationEntry, PaginationExpression, RetryEntry } from './snapshot.ts';
