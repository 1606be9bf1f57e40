/** Every workflow type dex registers (the worker bundles this file). */
export { taskWorkflow } from './task/workflow';
export { roadmapWorkflow } from './roadmap/workflow';
export { sheetWorkflow } from './sheet/workflow';
export { layerTargetWorkflow, layerWorkflow } from './layer/workflow';
