/** What the task routes get from the composition root (shared by the REST, export and SSE route files). */
import type { Logger } from 'pino';
import type { AudioTools } from '../engines/audio/port.js';
import type { Authenticator } from '../platform/auth/types.js';
import type { BlobStore } from '../storage/types.js';
import type { TaskService } from './service.js';
import type { SpeakerService } from './speakers/service.js';

export interface TaskRouteDeps {
  auth: Authenticator;
  tasks: TaskService;
  speakers: SpeakerService;
  blobs: BlobStore;
  /** MP3 export of the stored audio (the composition root's AudioTools). */
  audio: Pick<AudioTools, 'mp3Stream'>;
  logger?: Logger;
}
