/* A Bohnanza bot in C, written from docs/protocol.md alone: one JSON object per line in, one per
 * line out. It takes the first legal option the referee lists, skipping harvests and field
 * purchases when it can, and echoes it back with the request's id. No JSON library: a small
 * scanner finds the fields it needs and copies the chosen option as it was written.
 *
 *   arena play docs/examples/first_option_bot.c greedy greedy     (built with gcc, in the sandbox)
 *   arena submit docs/examples/first_option_bot.c                  (onto the ladder)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE (256 * 1024 + 2) /* the longest message the referee may send, and its newline */

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* The end of the JSON string starting at p (its opening quote), just past its closing quote. */
static const char *skip_string(const char *p) {
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : p;
}

/* The end of the JSON value starting at p. */
static const char *skip_value(const char *p) {
    p = skip_space(p);
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        int depth = 0;
        for (; *p; p++) {
            if (*p == '"') { p = skip_string(p) - 1; continue; }
            if (*p == '{' || *p == '[') depth++;
            if (*p == '}' || *p == ']') { if (--depth == 0) return p + 1; }
        }
        return p;
    }
    while (*p && *p != ',' && *p != '}' && *p != ']') p++; /* number, true, false, null */
    return p;
}

/* The value of the key `key` in the object starting at `obj` (its '{'), or NULL. */
static const char *member(const char *obj, const char *key) {
    size_t len = strlen(key);
    const char *p = skip_space(obj);
    if (*p != '{') return NULL;
    p = skip_space(p + 1);
    while (*p == '"') {
        const char *name = p + 1, *after = skip_string(p);
        int match = (size_t)(after - 1 - name) == len && strncmp(name, key, len) == 0;
        p = skip_space(after);
        if (*p != ':') return NULL;
        p = skip_space(p + 1);
        if (match) return p;
        p = skip_space(skip_value(p));
        if (*p != ',') return NULL;
        p = skip_space(p + 1);
    }
    return NULL;
}

static int string_is(const char *value, const char *text) {
    size_t len = strlen(text);
    return value && *value == '"' && strncmp(value + 1, text, len) == 0 && value[1 + len] == '"';
}

int main(void) {
    static char line[MAX_LINE];
    while (fgets(line, sizeof line, stdin)) {
        const char *type = member(line, "type");
        if (string_is(type, "hello")) {
            printf("{\"type\":\"ready\"}\n");
        } else if (string_is(type, "decide")) {
            const char *id = member(line, "id"), *options = member(line, "options");
            const char *first = NULL, *first_end = NULL, *choice = NULL, *end = NULL;
            if (!id || !options || *options != '[') return 1;
            for (const char *p = skip_space(options + 1); *p == '{'; ) {
                const char *next = skip_value(p), *kind = member(p, "type");
                if (!first) { first = p; first_end = next; }
                if (!string_is(kind, "harvest") && !string_is(kind, "buy_field")) { choice = p; end = next; break; }
                p = skip_space(next);
                if (*p == ',') p = skip_space(p + 1);
            }
            if (!choice) { choice = first; end = first_end; }
            if (!choice) return 1;
            printf("{\"id\":%.*s,\"action\":%.*s}\n", (int)(skip_value(id) - id), id, (int)(end - choice), choice);
        }
        fflush(stdout); /* answer at once: the referee waits for each line */
    }
    return 0;
}
