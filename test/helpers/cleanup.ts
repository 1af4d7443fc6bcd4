/** Stop actions run in reverse order of registration; each runs once, errors are reported and ignored. */
export class Cleanup {
  private readonly actions: { name: string; run: () => Promise<void> }[] = [];
  private running: Promise<void> | undefined;

  add(name: string, run: () => Promise<void>): void {
    this.actions.push({ name, run });
  }

  runAll(): Promise<void> {
    this.running ??= (async () => {
      for (const action of this.actions.reverse()) {
        try {
          await action.run();
        } catch (error) {
          console.error(`cleanup: ${action.name}: ${(error as Error).message}`);
        }
      }
    })();
    return this.running;
  }
}
