import { OmitType, PartialType } from '@nestjs/swagger';
import { CreateRuleDto } from './create-rule.dto';

/** Any field of a rule but its type, which would change what the rule means. */
export class UpdateRuleDto extends PartialType(OmitType(CreateRuleDto, ['alert_type'] as const)) {}
