import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, Length, Matches } from 'class-validator';
import { UPLOAD_LIMITS } from '../../artifacts/chunk-upload';
import { IsProjectList } from './project-list';

const SHA1 = /^[0-9a-fA-F]{40}$/;
const MAX_CHUNKS = Math.ceil(UPLOAD_LIMITS.maxBundleSize / UPLOAD_LIMITS.chunkSize);

/** POST /api/0/organizations/{org}/artifactbundle/assemble/, as sentry-cli sends it. */
export class AssembleBundleDto {
  @ApiProperty({ description: 'SHA-1 of the whole bundle' })
  @IsString({ message: 'checksum must be the SHA-1 of the bundle (40 hex digits)' })
  @Matches(SHA1, { message: 'checksum must be the SHA-1 of the bundle (40 hex digits)' })
  checksum: string;

  @ApiProperty({ type: [String], description: 'SHA-1 of each chunk, in order' })
  @IsArray({ message: 'chunks must be a list of chunk SHA-1s' })
  @ArrayMaxSize(MAX_CHUNKS, {
    message: `a bundle has at most ${MAX_CHUNKS} chunks (${UPLOAD_LIMITS.maxBundleSize} bytes)`,
  })
  @Matches(SHA1, { each: true, message: 'chunks must be a list of chunk SHA-1s (40 hex digits each)' })
  chunks: string[];

  @ApiProperty({ type: [String], description: 'slugs or ids of the projects the bundle is for' })
  @IsArray({ message: 'projects must be a list of project slugs or ids' })
  @ArrayMinSize(1, { message: 'projects must name at least one project' })
  @ArrayMaxSize(20, { message: 'projects names at most 20 projects' })
  @IsProjectList()
  projects: (string | number)[];

  @ApiPropertyOptional({ description: 'the release the files belong to' })
  @IsOptional()
  @IsString({ message: 'version must be a string' })
  @Length(1, 200, { message: 'version must be 1 to 200 characters' })
  @Matches(/^[^/\n]+$/, { message: 'version must not contain / or line breaks' })
  version?: string;

  @ApiPropertyOptional({ description: 'the distribution of the release' })
  @IsOptional()
  @IsString({ message: 'dist must be a string' })
  @Length(1, 64, { message: 'dist must be 1 to 64 characters' })
  dist?: string;
}
