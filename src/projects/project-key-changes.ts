import { Injectable } from '@nestjs/common';

type Listener = () => Promise<void>;

/**
 * Tells whoever keeps client keys in memory (ingest's snapshot) that a project's keys changed in
 * this process, so that a rotation takes effect here before its answer is sent, instead of at the
 * next periodic reload. Other instances still learn of it by reloading (see ProjectKeys).
 */
@Injectable()
export class ProjectKeyChanges {
  private readonly listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once every listener is done; a listener's failure is its own business. */
  async changed(): Promise<void> {
    await Promise.allSettled([...this.listeners].map((listener) => listener()));
  }
}
