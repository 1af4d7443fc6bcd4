import { Module } from '@nestjs/common';
import { OutcomeCounter } from './outcome-counter';
import { OutcomeFolder } from './outcome-folder';
import { OutcomesRepository } from './outcomes.repository';

/** Counting outcomes (ingest), folding them (the maintenance worker), trimming them (retention). */
@Module({
  providers: [OutcomesRepository, OutcomeCounter, OutcomeFolder],
  exports: [OutcomesRepository, OutcomeCounter, OutcomeFolder],
})
export class OutcomesDataModule {}
