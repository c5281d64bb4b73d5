// Meet in the middle.  Every state within 8 moves of the target is stored
// once (about 10 thousand states); for each board a BFS of depth 7 is run from
// the board and the smallest a + b over common states is the answer (any
// path of length <= 15 splits into at most 7 moves from the board and at
// most 8 moves to the target).
#include <cstdio>
#include <unordered_map>
#include <vector>

typedef unsigned int u32;
static std::vector<int> adj[25];

u32 encode(char b[5][6]) {
    u32 s = 0;
    for (int i = 0; i < 25; i++) {
        char c = b[i / 5][i % 5];
        if (c == '1') s |= 1u << i;
        else if (c == '*') s |= (u32)i << 25;
    }
    return s;
}

template <class F>
void expand(u32 s, F f) {
    int blank = s >> 25;
    u32 m = s & ((1u << 25) - 1);
    for (int p : adj[blank]) {
        u32 bit = (m >> p) & 1u;
        u32 nm = (m & ~(1u << p)) | (bit << blank);
        f(nm | ((u32)p << 25));
    }
}

std::unordered_map<u32, int> bfs(u32 start, int depth) {
    std::unordered_map<u32, int> dist;
    dist[start] = 0;
    std::vector<u32> cur{start}, nxt;
    for (int d = 1; d <= depth; d++) {
        nxt.clear();
        for (u32 s : cur)
            expand(s, [&](u32 n) {
                if (dist.emplace(n, d).second) nxt.push_back(n);
            });
        cur.swap(nxt);
    }
    return dist;
}

int main() {
    for (int i = 0; i < 25; i++) {
        int r = i / 5, c = i % 5;
        int dr[8] = {1, 2, -1, -2, 1, 2, -1, -2}, dc[8] = {2, 1, 2, 1, -2, -1, -2, -1};
        for (int k = 0; k < 8; k++) {
            int nr = r + dr[k], nc = c + dc[k];
            if (nr >= 0 && nr < 5 && nc >= 0 && nc < 5) adj[i].push_back(nr * 5 + nc);
        }
    }
    char goal[5][6] = {"11111", "01111", "00*11", "00001", "00000"};
    std::unordered_map<u32, int> fromGoal = bfs(encode(goal), 8);
    int T;
    if (scanf("%d", &T) != 1) return 0;
    while (T--) {
        char b[5][6];
        for (int i = 0; i < 5; i++) scanf("%s", b[i]);
        std::unordered_map<u32, int> fromStart = bfs(encode(b), 7);
        int best = 100;
        for (auto &kv : fromStart) {
            auto it = fromGoal.find(kv.first);
            if (it != fromGoal.end() && kv.second + it->second < best) best = kv.second + it->second;
        }
        if (best <= 15) printf("%d\n", best);
        else printf("Bored!\n");
    }
    return 0;
}
