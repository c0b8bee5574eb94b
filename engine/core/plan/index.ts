export { ActionPlan, planOf, type PlanInput } from './action-plan.ts';
