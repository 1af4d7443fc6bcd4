import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/** Passwords set here: long enough to resist guessing online, bounded for the hash. */
export const PASSWORD_MIN_LENGTH = 8;

export class ChangePasswordDto {
  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  current_password: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH, {
    message: `new_password must be at least ${PASSWORD_MIN_LENGTH} characters`,
  })
  @MaxLength(1024)
  new_password: string;
}

export class UpdateAccountDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: 'personal e-mails: assignments and alerts to the assignee' })
  @IsOptional()
  @IsBoolean()
  email_notifications?: boolean;
}

export class AcceptInvitationDto {
  @ApiProperty({ description: 'the invited e-mail address, typed again' })
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  email: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH })
  @IsString()
  @MinLength(PASSWORD_MIN_LENGTH, { message: `password must be at least ${PASSWORD_MIN_LENGTH} characters` })
  @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;
}
