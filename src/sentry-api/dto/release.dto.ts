import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDateString, IsOptional, IsString, Length, Matches } from 'class-validator';
import { IsProjectList } from './project-list';

const VERSION = /^[^/\n]+$/;

/** Fields sentry-cli sends with releases that this server takes but does not keep. */
class ReleaseExtras {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  @Length(0, 2048, { message: 'url must be at most 2048 characters' })
  url?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString({ message: 'ref must be a string' })
  ref?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsDateString({}, { message: 'dateStarted must be an ISO 8601 time' })
  dateStarted?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsDateString({}, { message: 'dateReleased must be an ISO 8601 time' })
  dateReleased?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray({ message: 'projects must be a list of project slugs or ids' })
  @ArrayMaxSize(20, { message: 'projects names at most 20 projects' })
  @IsProjectList()
  projects?: (string | number)[];
}

/** POST …/releases/ (sentry-cli `releases new`). */
export class NewReleaseDto extends ReleaseExtras {
  @ApiProperty()
  @IsString({ message: 'version must be a string' })
  @Length(1, 200, { message: 'version must be 1 to 200 characters' })
  @Matches(VERSION, { message: 'version must not contain / or line breaks' })
  version: string;
}

/** PUT …/releases/{version}/ (sentry-cli `releases finalize`). */
export class UpdateReleaseDto extends ReleaseExtras {}

/** POST …/releases/{version}/deploys/ (sentry-cli `releases deploys … new`). */
export class NewDeployDto {
  @ApiProperty()
  @IsString({ message: 'environment must be a string' })
  @Length(1, 200, { message: 'environment must be 1 to 200 characters' })
  environment: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @Length(0, 200, { message: 'name must be at most 200 characters' })
  name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString({ message: 'url must be a string' })
  @Length(0, 2048, { message: 'url must be at most 2048 characters' })
  url?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsDateString({}, { message: 'dateStarted must be an ISO 8601 time' })
  dateStarted?: string | null;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsDateString({}, { message: 'dateFinished must be an ISO 8601 time' })
  dateFinished?: string | null;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray({ message: 'projects must be a list of project slugs or ids' })
  @ArrayMaxSize(20, { message: 'projects names at most 20 projects' })
  @IsProjectList()
  projects?: (string | number)[];
}
