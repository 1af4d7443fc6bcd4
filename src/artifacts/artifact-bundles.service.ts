import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/domain-errors';
import {
  cursorFields,
  DEFAULT_PAGE_SIZE,
  encodeCursor,
  invalidCursor,
  Page,
  toPage,
} from '../common/pagination';
import { ArtifactBundlesRepository, BundleRow } from './artifact-bundles.repository';
import type { ArtifactBundleView } from './dto/artifact-bundle.response';

export type { ArtifactBundleView };

/** The uploaded bundles of a project, as the API lists them. */
@Injectable()
export class ArtifactBundlesService {
  constructor(private readonly bundles: ArtifactBundlesRepository) {}

  async list(
    projectId: number,
    options: { limit?: number; cursor?: string; release?: string },
  ): Promise<Page<ArtifactBundleView>> {
    const limit = options.limit ?? DEFAULT_PAGE_SIZE;
    const rows = await this.bundles.list(
      projectId,
      limit + 1,
      decodeBundleCursor(options.cursor),
      options.release,
    );
    return toPage(rows, limit, (last) => encodeCursor([last.id]), toView);
  }

  async remove(projectId: number, bundleId: number): Promise<void> {
    if (!(await this.bundles.delete(projectId, String(bundleId))))
      throw new NotFoundError('artifact bundle not found');
  }
}

function decodeBundleCursor(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const fields = cursorFields(raw);
  if (fields.length !== 1 || !/^[1-9]\d{0,17}$/.test(fields[0])) throw invalidCursor();
  return fields[0];
}

function toView(row: BundleRow): ArtifactBundleView {
  return {
    id: Number(row.id),
    checksum: row.checksum,
    bundle_debug_id: row.bundle_debug_id,
    release: row.release,
    dist: row.dist,
    file_count: row.file_count,
    size: Number(row.size),
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    files: row.files,
  };
}
