-- Schema version 2: "fixed in version V" and what a regression is measured against (the last
-- report recorded when the bucket was marked fixed), and lookups by build-id.
ALTER TABLE buckets ADD COLUMN fixed_in TEXT;
ALTER TABLE buckets ADD COLUMN fixed_after BIGINT;
CREATE INDEX reports_build_id ON reports (build_id);
CREATE INDEX buckets_first_seen ON buckets (first_seen);
