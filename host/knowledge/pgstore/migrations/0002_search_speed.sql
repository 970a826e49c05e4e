-- Speed for the knowledge tools on a large store (measured on 1,000,000
-- steps, see docs/knowledge-postgres.md).

-- The sessions whose flow tags, tags or goal match a search word, by
-- trigrams: a search ranks the newest of them, and without this index a
-- word no session holds reads every session.
CREATE FUNCTION mmcp_session_search(text, text, text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN $1 || E'\n' || $2 || E'\n' || array_to_string($3, ' ');
CREATE INDEX sessions_search_trgm ON sessions USING gin (mmcp_session_search(s_flow, s_tags, goal_words) gin_trgm_ops);

-- Prior knowledge reads the sessions most recently active, in this order.
CREATE INDEX sessions_repo_prior ON sessions (repo, (GREATEST(COALESCE(meta_created_at, first_step_at), last_step_at)) DESC, session_id);

-- The record as text, as the tools read it: printing a JSONB record
-- costs more than reading it (27 ms of the 30 of prior knowledge's
-- 1,000 records). lz4 when the server has it: it decompresses faster
-- than pglz. Adding the column rewrites the table once.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) THEN
        ALTER TABLE steps ADD COLUMN record_text text COMPRESSION lz4 GENERATED ALWAYS AS (record::text) STORED;
    ELSE
        ALTER TABLE steps ADD COLUMN record_text text GENERATED ALWAYS AS (record::text) STORED;
    END IF;
END
$$;
