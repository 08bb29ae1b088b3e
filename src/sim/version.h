// The simulator's version and the commit it was built from, as `--version`
// prints them and every result's "meta" records.
#pragma once

namespace hx {
// Short commit hash, with "-dirty" if tracked files differed from it when
// the binary was built; "unknown" outside a git checkout. Taken at build
// time (scripts/git_revision.cmake), not when the build was configured.
const char* git_revision();
}  // namespace hx
