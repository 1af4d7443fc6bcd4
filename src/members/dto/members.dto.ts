import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { Role, ROLES } from '../../access/roles';

const ROLE_MESSAGE = `role must be one of ${ROLES.join(', ')}`;

export class UpdateMemberDto {
  @ApiPropertyOptional({ enum: ROLES })
  @IsOptional()
  @IsIn(ROLES, { message: ROLE_MESSAGE })
  role?: Role;

  @ApiPropertyOptional({ description: 'false deactivates: sessions and tokens stop working at once' })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;
}

export class TeamNameDto {
  @ApiProperty({ example: 'Frontend', maxLength: 100 })
  @IsString()
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;
}

export class CreateInvitationDto {
  @ApiProperty({ example: 'ada@example.com' })
  @IsString()
  @MaxLength(320)
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email: string;

  @ApiProperty({ enum: ROLES })
  @IsIn(ROLES, { message: ROLE_MESSAGE })
  role: Role;

  @ApiPropertyOptional({ type: [Number], description: 'teams the new account joins' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsInt({ each: true, message: 'team_ids must be team ids' })
  @Min(1, { each: true, message: 'team_ids must be team ids' })
  @Max(2_147_483_647, { each: true, message: 'team_ids must be team ids' })
  team_ids?: number[];
}
