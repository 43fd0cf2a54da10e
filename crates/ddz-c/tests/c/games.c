/* Plays whole games through ddz's C interface, as a game client would: the game handle deals
 * and referees, agents answer each seat's request, and every play request is also encoded and
 * its rows checked against the plays they stand for. Prints one line per check and per game
 * for tests/c_program.rs, which replays the games in Rust and compares.
 *
 *   games MODELS_DIR          (exit status 0 when every check held)
 */
#include "ddz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "FAIL %s: %s\n", what, detail ? detail : "(no detail)");
    failures++;
}

/* The text of a JSON string field `"key":"…"` of a flat request (no escapes in ddz's cards). */
static int field(const char *json, const char *key, char *out, size_t len) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(json, pattern);
    if (!start) return -1;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    if (!end || (size_t)(end - start) >= len) return -1;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
    return 0;
}

/* Cards a play's notation takes: the characters before a '/', none for "pass". */
static int cards_of(const char *play, size_t n) {
    if (n == 4 && strncmp(play, "pass", 4) == 0) return 0;
    const char *slash = memchr(play, '/', n);
    return (int)(slash ? (size_t)(slash - play) : n);
}

static float sum(const float *row, size_t n) {
    float s = 0;
    for (size_t i = 0; i < n; i++) s += row[i];
    return s;
}

/* Encodes a play request and checks its rows: the state row's first plane is the hand, and each
 * play row's first plane holds that play's cards, in the order of ddz_request_plays. */
static void check_encoding(const char *request, int hand_structure, int laizi) {
    size_t width = ddz_state_width(), play_width = ddz_play_width(hand_structure, laizi), n = 0;
    float *state = malloc(width * sizeof(float));
    /* First without room for the plays: the call says how many there are. */
    if (ddz_encode_request(request, hand_structure, state, width, NULL, 0, &n) != 1 || n == 0) {
        fail("encode without room", ddz_last_error());
        free(state);
        return;
    }
    float *plays = malloc(n * play_width * sizeof(float));
    if (ddz_encode_request(request, hand_structure, state, width, plays, n * play_width, &n) != 0) {
        fail("encode", ddz_last_error());
    }
    char hand[64];
    if (field(request, "hand", hand, sizeof hand) != 0 || (int)sum(state, 60) != (int)strlen(hand)) {
        fail("state row", request);
    }
    char *listed = ddz_request_plays(request);
    if (!listed) {
        fail("request plays", ddz_last_error());
    } else {
        /* Walk the JSON array of strings: ["pass","3",…]. */
        size_t k = 0;
        for (const char *p = strchr(listed, '"'); p; k++) {
            const char *end = strchr(p + 1, '"');
            if (k >= n || (int)sum(plays + k * play_width, 60) != cards_of(p + 1, (size_t)(end - p - 1))) {
                fail("play row", listed);
                break;
            }
            p = strchr(end + 1, '"');
        }
        if (k != n) fail("play count", listed);
        ddz_string_free(listed);
    }
    free(plays);
    free(state);
}

/* Encodes a bid request: its first plane is the seat's 17 cards. */
static void check_bid_encoding(const char *request) {
    size_t width = ddz_bid_width();
    float *row = malloc(width * sizeof(float));
    if (ddz_encode_bid_request(request, row, width) != 0) {
        fail("encode bid", ddz_last_error());
    } else if ((int)sum(row, 60) != 17) {
        fail("bid row", request);
    }
    free(row);
}

/* One game: `specs` names each seat's agent. Prints the game's record for the Rust side. */
static void play_game(const char *rules, bool bidding, uint64_t seed, const char **specs, int hand_structure) {
    DdzGame *game = ddz_game_new(rules, bidding, seed);
    if (!game) {
        fail("game", ddz_last_error());
        return;
    }
    int seats = ddz_game_seats(game);
    DdzAgent *agents[3] = {NULL, NULL, NULL};
    for (int s = 0; s < seats; s++) {
        agents[s] = ddz_agent_new(specs[s]);
        if (!agents[s]) fail(specs[s], ddz_last_error());
    }
    int decisions = 0;
    while (failures == 0 && ddz_game_current_seat(game) >= 0) {
        int seat = ddz_game_current_seat(game);
        char *request = ddz_game_request(game);
        if (strstr(request, "\"seat_index\"") == NULL) { /* a play request, not a bid */
            check_encoding(request, hand_structure, strcmp(rules, "laizi") == 0);
        } else {
            check_bid_encoding(request);
        }
        char *answer = ddz_agent_answer(agents[seat], request);
        if (!answer) {
            fail("answer", ddz_last_error());
        } else if (ddz_game_apply_answer(game, answer) != 0) {
            fail("apply", ddz_last_error());
        }
        ddz_string_free(answer);
        ddz_string_free(request);
        decisions++;
    }
    double returns[3] = {0, 0, 0};
    if (failures == 0 && ddz_game_returns(game, returns, 3) != seats) fail("returns", ddz_last_error());
    char *record = ddz_game_to_json(game);
    printf("game\t%s\t%d\t%llu\t%s|%s|%s\t%d\t%g,%g,%g\t%s\n", rules, bidding, (unsigned long long)seed,
           specs[0], specs[1], seats == 3 ? specs[2] : "", decisions, returns[0], returns[1], returns[2], record);
    ddz_string_free(record);
    for (int s = 0; s < seats; s++) ddz_agent_free(agents[s]);
    ddz_game_free(game);
}

/* A call that must fail: prints the reason ddz gives, for the Rust side to check. */
static void expect_error(const char *what, int failed) {
    const char *reason = ddz_last_error();
    if (!failed || !reason) {
        fail(what, "succeeded where it must fail");
        return;
    }
    printf("error\t%s\t%s\n", what, reason);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODELS_DIR\n", argv[0]);
        return 2;
    }
    printf("version\t%s\nlayout\t%s\n", ddz_version(), ddz_feature_layout());

    const char *hands[][3] = {{"33", NULL, NULL}, {"3455778899KAA22R", "44", NULL}, {"55567", NULL, "7"}};
    for (size_t k = 0; k < sizeof hands / sizeof hands[0]; k++) {
        char *plays = ddz_legal_plays(hands[k][0], hands[k][1], hands[k][2]);
        if (!plays) fail("legal plays", ddz_last_error());
        printf("legal\t%s\t%s\t%s\t%s\n", hands[k][0], hands[k][1] ? hands[k][1] : "", hands[k][2] ? hands[k][2] : "",
               plays ? plays : "");
        ddz_string_free(plays);
    }

    char ema[512], laizi[512], two[512], bid[512];
    snprintf(ema, sizeof ema, "checkpoint:%s/ema-2h", argv[1]);
    snprintf(laizi, sizeof laizi, "checkpoint:%s/laizi-1h", argv[1]);
    snprintf(two, sizeof two, "checkpoint:%s/two-player-1h", argv[1]);
    snprintf(bid, sizeof bid, "checkpoint:%s/dmc-bid-1h", argv[1]);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        const char *landlord_net[] = {ema, "rule", "rule"}, *farmer_nets[] = {"rule", ema, ema};
        play_game("standard", false, seed, landlord_net, 1);
        play_game("standard", false, seed, farmer_nets, 1);
        const char *laizi_table[] = {laizi, "rule", "rule"};
        play_game("laizi", false, seed, laizi_table, 1);
        const char *two_table[] = {two, "rule"};
        play_game("two_player", false, seed, two_table, 1);
        const char *bidding_table[] = {bid, "rule", bid};
        play_game("standard", true, seed, bidding_table, 1);
    }

    expect_error("spec", ddz_agent_new("no-such-agent") == NULL);
    expect_error("model", ddz_agent_new("checkpoint:/nonexistent/model") == NULL);
    expect_error("rules", ddz_game_new("chess", false, 1) == NULL);
    expect_error("hand", ddz_legal_plays("33X", NULL, NULL) == NULL);
    expect_error("null", ddz_legal_plays(NULL, NULL, NULL) == NULL);
    DdzAgent *rule = ddz_agent_new("rule");
    expect_error("request", ddz_agent_answer(rule, "{\"seat\":\"landlord\",\"hand\":") == NULL);
    ddz_agent_free(rule);
    DdzGame *game = ddz_game_new("standard", false, 9);
    expect_error("play", ddz_game_play(game, "RRRR") == -1);
    expect_error("bid", ddz_game_bid(game, 2) == -1);
    expect_error("answer", ddz_game_apply_answer(game, "{\"error\":\"no idea\"}") == -1);
    double returns[3];
    expect_error("returns", ddz_game_returns(game, returns, 3) == -1);
    size_t n;
    float state[1];
    char *request = ddz_game_request(game);
    expect_error("bid request", ddz_encode_bid_request(request, state, 1) == -1);
    expect_error("state room", ddz_encode_request(request, true, state, 1, NULL, 0, &n) == -1);
    ddz_string_free(request);
    ddz_game_free(game);

    printf("done\t%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
