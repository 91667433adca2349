-- Crash history, schema version 1 (docs/fleet.md). The same text runs on SQLite and PostgreSQL;
-- the words between at-signs (ID, BLOB) are the only ones each backend spells its own way (src/store/store.c).
-- Migrations only add: a later version never drops or rewrites what an earlier one made.
CREATE TABLE buckets (
	id @ID@,
	signature_version INTEGER NOT NULL,
	key TEXT NOT NULL,
	signature TEXT,
	class TEXT,
	blame TEXT,
	first_seen BIGINT NOT NULL,
	last_seen BIGINT NOT NULL,
	count BIGINT NOT NULL,
	first_version TEXT,
	last_version TEXT,
	first_build_id TEXT,
	last_build_id TEXT,
	status TEXT NOT NULL DEFAULT 'new',
	bug_url TEXT,
	UNIQUE (signature_version, key)
);
CREATE TABLE reports (
	id @ID@,
	recorded_at BIGINT NOT NULL,
	time BIGINT NOT NULL,
	host TEXT,
	executable TEXT,
	build_id TEXT,
	package TEXT,
	version TEXT,
	class TEXT,
	signature_version INTEGER NOT NULL,
	signature TEXT,
	bucket TEXT NOT NULL,
	core TEXT,
	report_encoding TEXT,
	report @BLOB@
);
CREATE INDEX reports_bucket ON reports (signature_version, bucket, time);
CREATE INDEX reports_time ON reports (time);
