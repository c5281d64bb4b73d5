// IDA* as it is usually written for this problem: global board, estimate =
// number of cells that differ from the target (the blank's cell included),
// prune when depth + estimate - 1 > limit.  (estimate - 1 never exceeds the
// number of misplaced knights, so the bound is admissible.)
#include <cstdio>
#include <cstring>
#include <algorithm>

static const char goal[5][6] = {"11111", "01111", "00*11", "00001", "00000"};
// directions 2k and 2k+1 are opposite, so d ^ 1 undoes d
static const int dx[8] = {1, -1, 1, -1, 2, -2, 2, -2};
static const int dy[8] = {2, -2, -2, 2, 1, -1, -1, 1};

char g[5][6];
int maxd;
bool ok;

int eva() {
    int cnt = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            if (g[i][j] != goal[i][j]) cnt++;
    return cnt;
}

void dfs(int dep, int x, int y, int last) {
    if (ok) return;
    int e = eva();
    if (e == 0) { ok = true; return; }
    if (dep + e - 1 > maxd) return;
    for (int d = 0; d < 8; d++) {
        if (last != -1 && d == (last ^ 1)) continue;  // undo of the last move
        int nx = x + dx[d], ny = y + dy[d];
        if (nx < 0 || ny < 0 || nx >= 5 || ny >= 5) continue;
        std::swap(g[x][y], g[nx][ny]);
        dfs(dep + 1, nx, ny, d);
        std::swap(g[x][y], g[nx][ny]);
        if (ok) return;
    }
}

int main() {
    int T;
    if (scanf("%d", &T) != 1) return 0;
    while (T--) {
        int sx = 0, sy = 0;
        for (int i = 0; i < 5; i++) {
            scanf("%s", g[i]);
            for (int j = 0; j < 5; j++)
                if (g[i][j] == '*') sx = i, sy = j;
        }
        ok = false;
        for (maxd = 0; maxd <= 15; maxd++) {
            dfs(0, sx, sy, -1);
            if (ok) break;
        }
        if (ok) printf("%d\n", maxd);
        else printf("Bored!\n");
    }
    return 0;
}
