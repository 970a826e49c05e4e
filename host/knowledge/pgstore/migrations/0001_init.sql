-- Sessions and steps of StepRecord v1: the record as JSONB, typed columns
-- for what queries filter and sort on, and the searched strings (derived by
-- knowledge.ParseStepFields, lowercased) for the search score.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE sessions (
    session_id      text COLLATE "C" PRIMARY KEY,
    repo            text NOT NULL,
    branch          text NOT NULL DEFAULT '',
    commit_sha      text NOT NULL DEFAULT '',
    meta            jsonb,
    meta_created_at timestamptz,
    first_step_at   timestamptz,
    last_step_at    timestamptz,
    flow_tags       text[] NOT NULL DEFAULT '{}',
    tags            text[] NOT NULL DEFAULT '{}',
    s_flow          text NOT NULL DEFAULT '',
    s_tags          text NOT NULL DEFAULT '',
    goal_words      text[] NOT NULL DEFAULT '{}',
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_repo_created ON sessions (repo, (COALESCE(meta_created_at, first_step_at)) DESC);
CREATE INDEX sessions_repo_active ON sessions (repo, last_step_at DESC);
CREATE INDEX sessions_flow_tags ON sessions USING gin (flow_tags);

CREATE FUNCTION mmcp_search(text, text, text, text, text, text[], text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN $1 || E'\n' || $2 || E'\n' || $3 || E'\n' || $4 || E'\n' || $5 || E'\n'
        || array_to_string($6, ' ') || E'\n' || array_to_string($7, ' ');

CREATE TABLE steps (
    session_id   text COLLATE "C" NOT NULL,
    step_id      text COLLATE "C" NOT NULL,
    repo         text NOT NULL,
    branch       text NOT NULL DEFAULT '',
    ts           timestamptz NOT NULL,
    tool         text NOT NULL,
    screen       text NOT NULL,
    ok           boolean NOT NULL,
    error_code   text NOT NULL DEFAULT '',
    test_ids     text[] NOT NULL DEFAULT '{}',
    s_tool       text NOT NULL,
    s_screen     text NOT NULL,
    s_selector   text NOT NULL DEFAULT '',
    s_labels     text NOT NULL DEFAULT '',
    s_a11y       text NOT NULL DEFAULT '',
    target_words text[] NOT NULL DEFAULT '{}',
    testid_words text[] NOT NULL DEFAULT '{}',
    record       jsonb NOT NULL,
    inserted_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, step_id)
);
CREATE INDEX steps_repo_ts ON steps (repo, ts DESC, step_id DESC);
CREATE INDEX steps_repo_screen_ts ON steps (repo, screen, ts DESC, step_id DESC);
CREATE INDEX steps_session_ts ON steps (session_id, ts, step_id);
-- The candidates of a search: every searched string, by trigrams. (An
-- expression, not a column: a copy would make rows large enough for
-- PostgreSQL to compress them, and every scored column would then be
-- decompressed again for each query token.)
CREATE INDEX steps_search_trgm ON steps USING gin (mmcp_search(s_tool, s_screen, s_selector, s_labels, s_a11y, target_words, testid_words) gin_trgm_ops);
