/**
 * Builds the task feature (once, in the composition root) from its ports: the store (the
 * records' only writer), the task service and speaker editing.
 */
import type { Logger } from 'pino';
import type { EventBus } from '../bus/types.js';
import type { BlobStore } from '../storage/types.js';
import type { Database } from '../store/database.js';
import { type ImportStatusPort, type TaskOutcomeEffects, type TaskReprocessor, TaskService } from './service.js';
import { SpeakerService } from './speakers/service.js';
import { TaskStore } from './store.js';

export interface TaskModule {
  store: TaskStore;
  tasks: TaskService;
  speakers: SpeakerService;
}

export function createTaskModule(deps: {
  database: Database;
  blobs: BlobStore;
  bus: EventBus;
  now?: () => Date;
  logger?: Logger;
  reprocessor?: TaskReprocessor;
  imports?: ImportStatusPort;
  outcomeEffects?: TaskOutcomeEffects;
}): TaskModule {
  const store = new TaskStore(deps.database, deps.now);
  const tasks = new TaskService({
    store,
    database: deps.database,
    blobs: deps.blobs,
    bus: deps.bus,
    logger: deps.logger,
    reprocessor: deps.reprocessor,
    imports: deps.imports,
    outcomeEffects: deps.outcomeEffects,
  });
  return { store, tasks, speakers: new SpeakerService(tasks, store, deps.bus) };
}
