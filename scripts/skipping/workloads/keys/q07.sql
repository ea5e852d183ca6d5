select count(*) as n from lineitem where l_partkey = 777
