// BFS over (head x, head y, body direction code); vis[x][y][code].
#include <cstdio>
#include <cstring>
#include <queue>
using namespace std;

int n, m, L, K;
bool stone[22][22];
bool vis[21][21][1 << 14];
int dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
struct Node { int x, y, code, step; };

int getdir(int x1, int y1, int x2, int y2) {  // direction from (x1,y1) to (x2,y2)
    for (int i = 0; i < 4; i++)
        if (x1 + dx[i] == x2 && y1 + dy[i] == y2) return i;
    return -1;
}

int bfs(int sx, int sy, int code) {
    if (sx == 1 && sy == 1) return 0;
    memset(vis, 0, sizeof vis);
    int mask = (1 << (2 * (L - 1))) - 1;
    queue<Node> q;
    q.push({sx, sy, code, 0});
    vis[sx][sy][code] = true;
    while (!q.empty()) {
        Node cur = q.front(); q.pop();
        int bx[8], by[8];
        bx[0] = cur.x, by[0] = cur.y;
        for (int i = 1; i < L; i++) {
            int d = (cur.code >> (2 * (i - 1))) & 3;
            bx[i] = bx[i - 1] + dx[d];
            by[i] = by[i - 1] + dy[d];
        }
        for (int i = 0; i < 4; i++) {
            int nx = cur.x + dx[i], ny = cur.y + dy[i];
            if (nx < 1 || ny < 1 || nx > n || ny > m || stone[nx][ny]) continue;
            bool hit = false;
            for (int j = 0; j < L; j++)
                if (bx[j] == nx && by[j] == ny) { hit = true; break; }
            if (hit) continue;
            int nc = ((cur.code << 2) | (i ^ 1)) & mask;
            if (vis[nx][ny][nc]) continue;
            if (nx == 1 && ny == 1) return cur.step + 1;
            vis[nx][ny][nc] = true;
            q.push({nx, ny, nc, cur.step + 1});
        }
    }
    return -1;
}

int main() {
    int cas = 0;
    while (scanf("%d %d %d", &n, &m, &L) == 3 && (n || m || L)) {
        int x[8], y[8];
        for (int i = 0; i < L; i++) scanf("%d %d", &x[i], &y[i]);
        memset(stone, 0, sizeof stone);
        scanf("%d", &K);
        for (int i = 0; i < K; i++) {
            int a, b;
            scanf("%d %d", &a, &b);
            stone[a][b] = true;
        }
        int code = 0;
        for (int i = L - 1; i >= 1; i--) code = (code << 2) | getdir(x[i - 1], y[i - 1], x[i], y[i]);
        printf("Case %d: %d\n", ++cas, bfs(x[0], y[0], code));
    }
    return 0;
}
