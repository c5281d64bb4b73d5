// NOIP-contestant style: file I/O, padded grid, step[][][][] precomputed by BFS,
// SPFA over (x, y, blank side) states.
#include <cstdio>
#include <cstring>
#include <queue>
using namespace std;

const int INF = 0x3f3f3f3f;
// 0 up, 1 down, 2 left, 3 right: k ^ 1 is the opposite side
const int dx[4] = {-1, 1, 0, 0};
const int dy[4] = {0, 0, -1, 1};

int n, m, q;
int g[35][35];           // 1 = movable, border stays 0
int step[35][35][4][4];  // blank from side k to side p of (x,y), (x,y) blocked
int d[35][35];
int dis[35][35][4];
bool inq[35][35][4];

struct Node { int x, y, k; };

void bfs(int sx, int sy, int bx, int by) {
    memset(d, -1, sizeof d);
    queue<pair<int, int> > Q;
    d[sx][sy] = 0;
    Q.push(make_pair(sx, sy));
    while (!Q.empty()) {
        int x = Q.front().first, y = Q.front().second;
        Q.pop();
        for (int i = 0; i < 4; i++) {
            int nx = x + dx[i], ny = y + dy[i];
            if (!g[nx][ny] || d[nx][ny] != -1 || (nx == bx && ny == by)) continue;
            d[nx][ny] = d[x][y] + 1;
            Q.push(make_pair(nx, ny));
        }
    }
}

int main() {
    freopen("puzzle.in", "r", stdin);
    freopen("puzzle.out", "w", stdout);
    scanf("%d%d%d", &n, &m, &q);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) scanf("%d", &g[i][j]);
    memset(step, 0x3f, sizeof step);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= m; j++) {
            if (!g[i][j]) continue;
            for (int k = 0; k < 4; k++) {
                int ax = i + dx[k], ay = j + dy[k];
                if (!g[ax][ay]) continue;
                bfs(ax, ay, i, j);
                for (int p = 0; p < 4; p++) {
                    int bx = i + dx[p], by = j + dy[p];
                    if (g[bx][by] && d[bx][by] != -1) step[i][j][k][p] = d[bx][by];
                }
            }
        }
    while (q--) {
        int ex, ey, sx, sy, tx, ty;
        scanf("%d%d%d%d%d%d", &ex, &ey, &sx, &sy, &tx, &ty);
        if (sx == tx && sy == ty) { printf("0\n"); continue; }
        bfs(ex, ey, sx, sy);
        memset(dis, 0x3f, sizeof dis);
        memset(inq, 0, sizeof inq);
        queue<Node> Q;
        for (int k = 0; k < 4; k++) {
            int x = sx + dx[k], y = sy + dy[k];
            if (!g[x][y] || d[x][y] == -1) continue;
            dis[sx][sy][k] = d[x][y];
            Q.push((Node){sx, sy, k});
            inq[sx][sy][k] = true;
        }
        while (!Q.empty()) {
            Node u = Q.front();
            Q.pop();
            inq[u.x][u.y][u.k] = false;
            for (int i = 0; i < 4; i++) {
                if (step[u.x][u.y][u.k][i] >= INF) continue;
                int x = u.x + dx[i], y = u.y + dy[i];
                int nd = dis[u.x][u.y][u.k] + step[u.x][u.y][u.k][i] + 1;
                if (nd < dis[x][y][i ^ 1]) {
                    dis[x][y][i ^ 1] = nd;
                    if (!inq[x][y][i ^ 1]) {
                        inq[x][y][i ^ 1] = true;
                        Q.push((Node){x, y, i ^ 1});
                    }
                }
            }
        }
        int ans = INF;
        for (int k = 0; k < 4; k++)
            if (dis[tx][ty][k] < ans) ans = dis[tx][ty][k];
        printf("%d\n", ans >= INF ? -1 : ans);
    }
    return 0;
}
