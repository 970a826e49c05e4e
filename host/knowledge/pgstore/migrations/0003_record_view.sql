-- The tools read only the part of a record the knowledge view parses
-- (timestamp, tool name and target, outcome, screen, URL, testids,
-- accessible names, labels, artifacts): parsing whole records was most
-- of prior knowledge's time (4.4 MB for its 1,000 records), and the
-- testids' tags and texts, the nodes' paths, the tool's input and the
-- outcome's result are skipped by the parse anyway.

-- mmcp_keep keeps the members of an object that the parse may read:
-- those whose name, ASCII-lowercased, is one of keys (encoding/json
-- matches field names case-insensitively), and every name that is not
-- ASCII (Unicode folding is encoding/json's to decide). A value that is
-- not an object is kept as it is, so a malformed record stays malformed.
CREATE FUNCTION mmcp_keep(o jsonb, keys text[]) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN jsonb_typeof(o) = 'object' THEN COALESCE((
        SELECT jsonb_object_agg(e.k, e.v) FROM jsonb_each(o) AS e(k, v)
        WHERE lower(e.k COLLATE "C") = ANY(keys) OR octet_length(e.k) <> length(e.k)), '{}'::jsonb)
    ELSE o END;

-- mmcp_keep_each applies mmcp_keep to each element of an array, in order.
CREATE FUNCTION mmcp_keep_each(a jsonb, keys text[]) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN CASE WHEN jsonb_typeof(a) = 'array' THEN COALESCE((
        SELECT jsonb_agg(mmcp_keep(e.x, keys) ORDER BY e.i) FROM jsonb_array_elements(a) WITH ORDINALITY AS e(x, i)), '[]'::jsonb)
    ELSE a END;

-- mmcp_record_view is the part of a StepRecord the knowledge view's parse
-- reads (host/knowledge/parse.go rawStep); the parse of it equals the
-- parse of the whole record (TestSameAnswersAsFileStore, TestRecordView*).
-- Only the exact spellings are pruned below the top level: a member
-- spelled otherwise ("Observation") is kept whole.
CREATE FUNCTION mmcp_record_view(r jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
    v jsonb := mmcp_keep(r, ARRAY['schemaversion', 'timestamp', 'sessionid', 'tool', 'outcome', 'observation', 'artifacts', 'labels']);
    o jsonb;
    a jsonb;
BEGIN
    IF jsonb_typeof(v) <> 'object' THEN
        RETURN v;
    END IF;
    IF v ? 'tool' THEN
        v := jsonb_set(v, '{tool}', mmcp_keep(v -> 'tool', ARRAY['name', 'target']));
    END IF;
    IF v ? 'outcome' THEN
        v := jsonb_set(v, '{outcome}', mmcp_keep(v -> 'outcome', ARRAY['ok', 'error']));
    END IF;
    IF jsonb_typeof(v -> 'observation') = 'object' THEN
        o := mmcp_keep(v -> 'observation', ARRAY['state', 'testids', 'a11y']);
        IF o ? 'state' THEN
            o := jsonb_set(o, '{state}', mmcp_keep(o -> 'state', ARRAY['currentscreen', 'currenturl']));
        END IF;
        IF o ? 'testIds' THEN
            o := jsonb_set(o, '{testIds}', mmcp_keep_each(o -> 'testIds', ARRAY['testid']));
        END IF;
        IF jsonb_typeof(o -> 'a11y') = 'object' THEN
            a := mmcp_keep(o -> 'a11y', ARRAY['nodes']);
            IF a ? 'nodes' THEN
                a := jsonb_set(a, '{nodes}', mmcp_keep_each(a -> 'nodes', ARRAY['ref', 'role', 'name']));
            END IF;
            o := jsonb_set(o, '{a11y}', a);
        END IF;
        v := jsonb_set(v, '{observation}', o);
    END IF;
    RETURN v;
END
$$;

-- record_view replaces record_text (schema 2): the tools read it, as
-- text. Adding it rewrites the table once.
ALTER TABLE steps DROP COLUMN record_text;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) THEN
        ALTER TABLE steps ADD COLUMN record_view text COMPRESSION lz4 GENERATED ALWAYS AS (mmcp_record_view(record)::text) STORED;
    ELSE
        ALTER TABLE steps ADD COLUMN record_view text GENERATED ALWAYS AS (mmcp_record_view(record)::text) STORED;
    END IF;
END
$$;
