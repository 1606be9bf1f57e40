/** Every workflow type dex registers (the worker bundles this file). */
export { taskWorkflow } from './task-workflow';
