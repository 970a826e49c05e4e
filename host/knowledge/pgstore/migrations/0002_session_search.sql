-- The sessions whose flow tags, tags or goal match a search word, by
-- trigrams: a search ranks the newest of them, and without this index a
-- word no session holds reads every session.
CREATE FUNCTION mmcp_session_search(text, text, text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN $1 || E'\n' || $2 || E'\n' || array_to_string($3, ' ');

CREATE INDEX sessions_search_trgm ON sessions USING gin (mmcp_session_search(s_flow, s_tags, goal_words) gin_trgm_ops);
